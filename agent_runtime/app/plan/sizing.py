"""What N agents need (CPUs, memory, nodes, world shards, workers, LLM rates) when none of
them waits for a core: the demand, from the measured costs (:mod:`.costs`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.app.plan.costs import Costs
from agent_runtime.app.workers import AGENTS_PER_WORKER

__all__ = ["CPU_HEADROOM", "MEMORY_HEADROOM", "Plan", "plan"]

#: a share of a node's cores planned for at most (the lag's tail grows near saturation)
CPU_HEADROOM = 0.7
#: and of its memory
MEMORY_HEADROOM = 0.8


@dataclass(frozen=True)
class Plan:
    agents: int
    embodied: bool
    ray: bool
    cpus: float
    memory_gb: float
    nodes: int
    world_shards: int
    agent_workers: int
    llm_calls_per_s: float
    llm_requests_per_minute: float
    llm_tokens_per_minute: float
    llm_requests_in_flight: float
    #: the pace the CPUs above buy (the measured runs'): the work a plan sizes for
    decisions_per_agent_minute: float
    sources: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def plan(
    agents: int,
    costs: Costs,
    *,
    embodied: bool,
    cores_per_node: float,
    memory_gb_per_node: float,
    llm_latency_s: float = 0.0,
    llm: bool = True,
    ray: bool = False,
) -> Plan:
    """What ``agents`` agents need on nodes of ``cores_per_node`` cores and
    ``memory_gb_per_node`` GB (each planned at :data:`CPU_HEADROOM` / :data:`MEMORY_HEADROOM`);
    with ``ray`` on a Ray cluster, whose own processes come once on top."""
    if agents < 1 or cores_per_node <= 0 or memory_gb_per_node <= 0 or llm_latency_s < 0:
        raise ValueError("need agents >= 1, positive node sizes and a latency >= 0")
    cpu = costs.embodied_cores_per_agent if embodied else costs.cores_per_agent
    pace = (
        costs.embodied_decisions_per_agent_minute if embodied else costs.decisions_per_agent_minute
    )
    mem = costs.embodied_mb_per_agent if embodied else costs.mb_per_agent
    shards = math.ceil(agents / costs.agents_per_shard.value) if embodied else 0
    # with bodies: the village's fixed part once (its servers' load grows with their bots,
    # which the part per agent holds), the rest per agent
    fixed_cores = costs.embodied_fixed_cores.value if embodied else 0.0
    fixed_mb = costs.embodied_fixed_mb.value if embodied else 0.0
    if ray:
        fixed_cores += costs.ray_fixed_cores.value
        fixed_mb += costs.ray_fixed_mb.value
    cpus = agents * cpu.value + fixed_cores
    memory_gb = (agents * mem.value + fixed_mb) / 1024
    nodes = max(
        math.ceil(cpus / (cores_per_node * CPU_HEADROOM)),
        math.ceil(memory_gb / (memory_gb_per_node * MEMORY_HEADROOM)),
        1,
    )
    calls_s = agents * costs.llm_calls_per_agent_hour.value / 3600 if llm else 0.0
    tokens_min = agents * costs.llm_tokens_per_agent_hour.value / 60 if llm else 0.0
    sources = {
        "cpus": cpu.source,
        "memory_gb": mem.source,
        "decisions_per_agent_minute": pace.source,
    }
    if ray:
        sources["cpus"] += f"; and Ray's own: {costs.ray_fixed_cores.source}"
        sources["memory_gb"] += f"; and Ray's own: {costs.ray_fixed_mb.source}"
    if embodied:
        sources["world_shards"] = costs.agents_per_shard.source
    if llm:
        sources["llm_calls_per_s"] = costs.llm_calls_per_agent_hour.source
        sources["llm_requests_per_minute"] = costs.llm_calls_per_agent_hour.source
        sources["llm_tokens_per_minute"] = costs.llm_tokens_per_agent_hour.source
    return Plan(
        agents=agents,
        embodied=embodied,
        ray=ray,
        cpus=round(cpus, 2),
        memory_gb=round(memory_gb, 2),
        nodes=nodes,
        world_shards=shards,
        agent_workers=max(1, math.ceil(agents / AGENTS_PER_WORKER)),
        llm_calls_per_s=round(calls_s, 2),
        llm_requests_per_minute=round(calls_s * 60),
        llm_tokens_per_minute=round(tokens_min),
        llm_requests_in_flight=round(calls_s * llm_latency_s, 1),  # Little's law
        decisions_per_agent_minute=round(pace.value, 2),
        sources=sources,
    )
