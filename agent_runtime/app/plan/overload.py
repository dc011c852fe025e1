"""Whether a village asks a machine for more CPU than it has, said before the run starts.

A village whose demand (:func:`~agent_runtime.app.plan.sizing.plan`) is over the machine's
cores runs CPU-bound: every process waits for a core, and with bodies the server's
honest-play checks (movement, flying, keep-alive) then see our own bodies' packets late and
refuse their moves or kick them (the 200-agent bench on 2 cores, ``app/BENCH.md``). The run
goes on: this is a warning with the figures ``piano plan`` gives and what to change."""

from __future__ import annotations

from pathlib import Path

from agent_runtime.app.plan.costs import ROOT, PlanError, load_costs
from agent_runtime.app.plan.machine import on_machine
from agent_runtime.app.plan.sizing import plan

__all__ = ["overload_warning"]


def overload_warning(agents: int, *, embodied: bool, cores: float, root: Path = ROOT) -> str | None:
    """A warning when ``agents`` agents (with bodies if ``embodied``) ask ``cores`` cores for
    more CPU than they have, else None (also None when the measured costs are not there)."""
    try:
        costs = load_costs(root)
    except (PlanError, OSError):
        return None
    p = plan(
        agents, costs, embodied=embodied, cores_per_node=cores, memory_gb_per_node=1e6, llm=False
    )
    m = on_machine(p, cores=cores)
    if not m.cpu_bound:
        return None
    flag = " --embodied" if embodied else ""
    effect = "its agents decide more slowly than the plan's pace" + (
        ", and the further past the cores, the more of our bodies' moves the server's"
        " honest-play checks refuse, up to kicks (seen at 200 agents on 2 cores)"
        if embodied
        else ""
    )
    return (
        f"warning: {agents} agents{' with bodies' if embodied else ''} ask for about "
        f"{p.cpus:g} cores and this machine has {cores:g} ({m.cpu_load:.1f} x its cores): the "
        f"run will be CPU-bound and {effect}; at most about "
        f"{_fits(agents, m.cpu_load):d} fit (piano plan --agents {agents}{flag} --cores "
        f"{cores:g}); fewer agents, or --cluster ray over more machines"
    )


def _fits(agents: int, load: float) -> int:
    """About how many agents the cores hold: demand is close to linear in the agents."""
    return max(1, int(agents / load))
