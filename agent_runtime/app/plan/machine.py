"""What a plan's village does on a given machine (or machines): ``--cores C [--memory-gb M]``.

A plan states demand: the CPU its agents use at the pace of the measured runs, none of which
waited for a core. On fewer cores than that the run is CPU-bound: it uses the cores there
are, and its agents decide more slowly, at the measured pace scaled by the cores it gets over
the cores it wants (every process of the village slows alike: the 100-agent benches on this
2-core machine, checked in ``agent_runtime/app/BENCH.md``). Between
:data:`~agent_runtime.app.plan.sizing.CPU_HEADROOM` of the cores and all of them the run is
*near* saturation: there the measured pace already falls below this model's (the lag's tail
grows), which is why a plan sizes nodes to that share.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agent_runtime.app.plan.sizing import CPU_HEADROOM, MEMORY_HEADROOM, Plan

__all__ = ["OnMachine", "on_machine"]


@dataclass(frozen=True)
class OnMachine:
    cores: float
    memory_gb: float | None  # None: not given, not checked
    cpus_used: float  # min(demand, cores)
    cpu_load: float  # demand / cores: above 1 CPU-bound
    decisions_per_agent_minute: float
    memory_fits: bool | None
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def cpu_bound(self) -> bool:
        return self.cpu_load > 1

    @property
    def near_saturation(self) -> bool:
        """Above CPU_HEADROOM of the cores, not above all of them."""
        return CPU_HEADROOM < self.cpu_load <= 1

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "cpu_bound": self.cpu_bound,
            "near_saturation": self.near_saturation,
        }


def on_machine(p: Plan, *, cores: float, memory_gb: float | None = None) -> OnMachine:
    """What plan ``p`` does on ``cores`` cores (and ``memory_gb`` GB) in all."""
    if cores <= 0 or (memory_gb is not None and memory_gb <= 0):
        raise ValueError("need positive --cores and --memory-gb")
    load = p.cpus / cores
    share = min(1.0, 1 / load) if load > 0 else 1.0  # of the demanded CPU the run gets
    sources = {
        "cpus_used": f"min(the CPUs planned, --cores); the CPUs planned: {p.sources['cpus']}",
        "cpu_load": "the CPUs planned / --cores (above 1: CPU-bound)",
        "decisions_per_agent_minute": (
            f"{p.sources['decisions_per_agent_minute']}, x min(1, --cores / the CPUs planned)"
        ),
    }
    fits = None
    if memory_gb is not None:
        fits = p.memory_gb <= memory_gb * MEMORY_HEADROOM
        sources["memory_fits"] = (
            f"the memory planned <= {MEMORY_HEADROOM:.0%} of --memory-gb; the memory planned: "
            f"{p.sources['memory_gb']}"
        )
    return OnMachine(
        cores=cores,
        memory_gb=memory_gb,
        cpus_used=round(min(p.cpus, cores), 2),
        cpu_load=round(load, 2),
        decisions_per_agent_minute=round(p.decisions_per_agent_minute * share, 2),
        memory_fits=fits,
        sources=sources,
    )
