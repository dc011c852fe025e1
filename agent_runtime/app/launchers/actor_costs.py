"""What a worker's or a world shard's actor asks the cluster for: the share of a CPU its
measured cost needs, not a whole one.

An actor mostly waits on its child processes; what uses a core is the child (a ``piano
worker`` with its agents and, in a world, their body hosts; a shard's Minecraft server), and
that grows with the agents it holds. The figures come from committed measurements (the same
files ``piano plan`` reads, :class:`agent_runtime.app.plan.costs.Sources`):

- with bodies, a ``piano bench village --cluster ray`` run's processes by kind (``ray``):
  the worker actors' and shard actors' own processes (per actor), the ``piano worker`` and
  ``body host`` processes per agent, the ``minecraft server`` processes per agent;
- without a world, the ``piano bench runtime`` run (``runtime``): CPU per agent-second.

So a 10-agent village of 2 shards and 2 workers asks ~0.2 CPU in all, and runs on a 2-core
machine's local Ray; a request no node can hold is said at once (:mod:`.ray_launcher`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.app.plan.costs import ROOT, PlanError, Sources, read_result

__all__ = ["MIN_CPUS", "ActorCosts", "measured_actor_costs", "village_requests"]

#: the least an actor asks for (Ray takes fractions down to 0.0001; 0.01 keeps requests legible)
MIN_CPUS = 0.01


@dataclass(frozen=True)
class ActorCosts:
    """Cores (fractions of one) an actor's own process and its child use."""

    worker_actor: float  # a worker actor's own process
    worker_per_agent: float  # its ``piano worker`` and body hosts, per agent (with bodies)
    worker_per_agent_no_world: float  # its ``piano worker`` per agent, without a world
    shard_actor: float  # a shard actor's own process
    shard_per_bot: float  # its Minecraft server, per body on it
    source: str  # the files and fields these come from

    def worker_cpus(self, agents: int, *, embodied: bool) -> float:
        """What a worker actor hosting ``agents`` agents asks for."""
        per = self.worker_per_agent if embodied else self.worker_per_agent_no_world
        return _request(self.worker_actor + agents * per)

    def shard_cpus(self, bots: int) -> float:
        """What a shard actor whose server holds ``bots`` bodies asks for."""
        return _request(self.shard_actor + bots * self.shard_per_bot)


def _request(cores: float) -> float:
    """``cores`` rounded up to a hundredth, at least :data:`MIN_CPUS`."""
    return max(MIN_CPUS, math.ceil(round(cores * 100, 6)) / 100)


def _kind(data: dict[str, Any], rel: str, kind: str) -> dict[str, Any]:
    kinds = data.get("all_processes", {}).get("by_kind", {})
    if kind not in kinds:
        raise PlanError(f"{rel}: no field all_processes.by_kind.{kind!r}")
    part: dict[str, Any] = kinds[kind]
    return part


def measured_actor_costs(root: Path = ROOT, sources: Sources | None = None) -> ActorCosts:
    """The costs of :class:`ActorCosts` from the committed results (:class:`PlanError`
    naming a file or field that is missing)."""
    src = sources or Sources()
    ray, runtime = read_result(src.ray, root), read_result(src.runtime, root)
    agents = float(ray["agents"])

    def per_process(kind: str) -> float:
        k = _kind(ray, src.ray, kind)
        return float(k["cpu_percent"]) / 100 / float(k["processes"])

    def per_agent(*kinds: str) -> float:
        return sum(float(_kind(ray, src.ray, k)["cpu_percent"]) for k in kinds) / 100 / agents

    return ActorCosts(
        worker_actor=per_process("ray actor (worker)"),
        worker_per_agent=per_agent("piano worker", "body host"),
        worker_per_agent_no_world=float(runtime["cpu_us_per_agent_s"]) / 1e6,
        shard_actor=per_process("ray actor (shard)"),
        shard_per_bot=per_agent("minecraft server"),
        source=(
            f"{src.ray}: all_processes.by_kind (ray actor (worker|shard) per process; piano "
            f"worker + body host, minecraft server per agent); {src.runtime}: "
            "cpu_us_per_agent_s"
        ),
    )


def village_requests(
    agents: int, workers: int, shards: int, *, embodied: bool, costs: ActorCosts | None = None
) -> tuple[float, float]:
    """(each worker actor's CPUs, each shard actor's CPUs) of a village of ``agents`` agents
    over ``workers`` workers and ``shards`` embedded world shards (the busiest of each)."""
    c = costs or measured_actor_costs()
    per_worker = math.ceil(agents / max(1, workers))
    per_shard = math.ceil(agents / max(1, shards))
    return c.worker_cpus(per_worker, embodied=embodied), c.shard_cpus(per_shard)
