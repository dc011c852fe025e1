"""Capacity planning: what N agents need (CPUs, memory, nodes, world shards, workers, LLM
rates), from per-agent costs the benchmarks measured and committed as result files.

Every figure of a :class:`Plan` names the file and field it comes from (``sources``), so a
reader can check it and a new measurement changes the plan without touching this code:

- agents without a world: ``piano bench runtime --json-out`` (CPU per agent-second, memory
  per agent; Redis and the broker included);
- embodied agents: two ``piano bench village --json-out`` runs of different sizes on one
  shard (every process of the run: server, bot hosts, Redis, broker, the village): the
  line through them gives a fixed part and a part per agent; the larger run's agents per
  shard (with 0 kicks) is the density planned for;
- the LLM: ``piano bench cost --json-out`` (calls and tokens per agent-hour).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.app.workers import AGENTS_PER_WORKER

__all__ = ["Costs", "Plan", "PlanError", "load_costs", "plan", "render_check"]

ROOT = Path(__file__).resolve().parents[2]
#: the committed measurements the plan is made from (relative to the repository)
RUNTIME = "agent_runtime/app/results/cluster-2026-11-26/runtime-1000-proc3.json"
VILLAGE_SMALL = "agent_runtime/app/results/plan/village-20-1shard.json"
VILLAGE = "agent_runtime/app/results/plan/village-40-1shard.json"
COST = "agent_runtime/llm/results/cost-2026-11-27-c-after.json"
#: at most this share of a node's cores is planned for (the lag's tail grows near saturation)
CPU_HEADROOM = 0.7
#: and of its memory
MEMORY_HEADROOM = 0.8


class PlanError(ValueError):
    """A result file is missing or lacks a field; the message names it."""


@dataclass(frozen=True)
class Cost:
    value: float
    source: str  # "file: field"


@dataclass(frozen=True)
class Costs:
    cores_per_agent: Cost  # without a world
    mb_per_agent: Cost
    embodied_cores_per_agent: Cost
    embodied_mb_per_agent: Cost
    embodied_fixed_cores: Cost  # what a village with bodies costs before its first agent
    embodied_fixed_mb: Cost
    agents_per_shard: Cost
    llm_calls_per_agent_hour: Cost
    llm_tokens_per_agent_hour: Cost


@dataclass(frozen=True)
class Plan:
    agents: int
    embodied: bool
    cpus: float
    memory_gb: float
    nodes: int
    world_shards: int
    agent_workers: int
    llm_calls_per_s: float
    llm_tokens_per_minute: float
    llm_requests_in_flight: float
    sources: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _read(rel: str, root: Path) -> dict[str, Any]:
    path = root / rel
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        raise PlanError(f"{rel}: no such result file (run the benchmark with --json-out)") from None
    except ValueError as err:
        raise PlanError(f"{rel}: not JSON ({err})") from None
    return data


def _field(data: dict[str, Any], rel: str, *path: str) -> float:
    node: Any = data
    for key in path:
        if not isinstance(node, dict) or key not in node:
            raise PlanError(f"{rel}: no field {'.'.join(path)}")
        node = node[key]
    return float(node)


def load_costs(
    root: Path = ROOT,
    runtime: str = RUNTIME,
    village: str = VILLAGE,
    cost: str = COST,
    village_small: str = VILLAGE_SMALL,
) -> Costs:
    r, c = _read(runtime, root), _read(cost, root)
    small, large = _read(village_small, root), _read(village, root)
    n_small, n_large = _field(small, village_small, "agents"), _field(large, village, "agents")
    if n_large <= n_small:
        raise PlanError(f"{village} must have more agents than {village_small}")
    if _field(large, village, "kicks") > 0:
        raise PlanError(f"{village}: bodies were kicked; it cannot set the density planned for")

    def line(key: str) -> tuple[float, float]:  # (fixed, per agent) through the two runs
        a = _field(small, village_small, "all_processes", key)
        b = _field(large, village, "all_processes", key)
        per = (b - a) / (n_large - n_small)
        return b - per * n_large, per

    cpu_fixed, cpu_per = line("cpu_percent")
    mb_fixed, mb_per = line("rss_mb")
    both = f"{village_small} and {village}"
    return Costs(
        cores_per_agent=Cost(
            _field(r, runtime, "cpu_us_per_agent_s") / 1e6
            + _field(r, runtime, "services_cpu_pct") / 100 / _field(r, runtime, "agents"),
            f"{runtime}: cpu_us_per_agent_s + services_cpu_pct / agents",
        ),
        mb_per_agent=Cost(_field(r, runtime, "rss_mb_per_agent"), f"{runtime}: rss_mb_per_agent"),
        embodied_cores_per_agent=Cost(
            cpu_per / 100, f"{both}: all_processes.cpu_percent, the slope per agent"
        ),
        embodied_mb_per_agent=Cost(mb_per, f"{both}: all_processes.rss_mb, the slope per agent"),
        embodied_fixed_cores=Cost(max(0.0, cpu_fixed / 100), f"{both}: the line at 0 agents"),
        embodied_fixed_mb=Cost(max(0.0, mb_fixed), f"{both}: the line at 0 agents"),
        agents_per_shard=Cost(
            n_large / _field(large, village, "shards"), f"{village}: agents / shards, 0 kicks"
        ),
        llm_calls_per_agent_hour=Cost(
            _field(c, cost, "modules", "all", "calls_per_agent_hour"),
            f"{cost}: modules.all.calls_per_agent_hour",
        ),
        llm_tokens_per_agent_hour=Cost(
            _field(c, cost, "modules", "all", "tokens_per_agent_hour"),
            f"{cost}: modules.all.tokens_per_agent_hour",
        ),
    )


def plan(
    agents: int,
    costs: Costs,
    *,
    embodied: bool,
    cores_per_node: float,
    memory_gb_per_node: float,
    llm_latency_s: float = 0.0,
    llm: bool = True,
) -> Plan:
    """What ``agents`` agents need on nodes of ``cores_per_node`` cores and
    ``memory_gb_per_node`` GB (each planned at :data:`CPU_HEADROOM` / :data:`MEMORY_HEADROOM`)."""
    if agents < 1 or cores_per_node <= 0 or memory_gb_per_node <= 0 or llm_latency_s < 0:
        raise ValueError("need agents >= 1, positive node sizes and a latency >= 0")
    cpu = costs.embodied_cores_per_agent if embodied else costs.cores_per_agent
    mem = costs.embodied_mb_per_agent if embodied else costs.mb_per_agent
    shards = math.ceil(agents / costs.agents_per_shard.value) if embodied else 0
    # with bodies: the village's fixed part once (its servers' load grows with their bots,
    # which the part per agent holds), the rest per agent
    fixed_cores = costs.embodied_fixed_cores.value if embodied else 0.0
    fixed_mb = costs.embodied_fixed_mb.value if embodied else 0.0
    cpus = agents * cpu.value + fixed_cores
    memory_gb = (agents * mem.value + fixed_mb) / 1024
    nodes = max(
        math.ceil(cpus / (cores_per_node * CPU_HEADROOM)),
        math.ceil(memory_gb / (memory_gb_per_node * MEMORY_HEADROOM)),
        1,
    )
    calls_s = agents * costs.llm_calls_per_agent_hour.value / 3600 if llm else 0.0
    tokens_min = agents * costs.llm_tokens_per_agent_hour.value / 60 if llm else 0.0
    sources = {"cpus": cpu.source, "memory_gb": mem.source}
    if embodied:
        sources["world_shards"] = costs.agents_per_shard.source
    if llm:
        sources["llm_calls_per_s"] = costs.llm_calls_per_agent_hour.source
        sources["llm_tokens_per_minute"] = costs.llm_tokens_per_agent_hour.source
    return Plan(
        agents=agents,
        embodied=embodied,
        cpus=round(cpus, 2),
        memory_gb=round(memory_gb, 2),
        nodes=nodes,
        world_shards=shards,
        agent_workers=max(1, math.ceil(agents / AGENTS_PER_WORKER)),
        llm_calls_per_s=round(calls_s, 2),
        llm_tokens_per_minute=round(tokens_min),
        llm_requests_in_flight=round(calls_s * llm_latency_s, 1),  # Little's law
        sources=sources,
    )


def render_check(source: Path, options: Mapping[str, str]) -> str:
    """The plan for a measured village bench (``source``) beside what it measured."""
    measured = json.loads(source.read_text())
    agents = int(measured["agents"])
    p = plan(
        agents,
        load_costs(),
        embodied=True,
        cores_per_node=float(options.get("cores", "2")),
        memory_gb_per_node=float(options.get("memory_gb", "24")),
        llm=False,
    )
    used = measured["all_processes"]
    cores = float(used["cpu_percent"]) / 100
    gb = float(used["rss_mb"]) / 1024
    return "\n".join(
        [
            f"| {agents} agents with bodies | planned | measured |",
            "|---|---|---|",
            f"| CPUs (cores) | {p.cpus:g} | {cores:.2f} (of the machine's "
            f"{measured['provenance']['cpus']}) |",
            f"| memory (GB) | {p.memory_gb:g} | {gb:.2f} |",
            f"| world shards | {p.world_shards} | {measured['shards']} (kicks: "
            f"{measured['kicks']}) |",
            f"| nodes of {options.get('cores', '2')} cores | {p.nodes} | 1 |",
        ]
    ) + "\n"
