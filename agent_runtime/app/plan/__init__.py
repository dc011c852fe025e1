"""Capacity planning: what N agents need (CPUs, memory, nodes, world shards, workers, LLM
rates, the pace they decide at), from per-agent costs the benchmarks measured and committed
as result files, and what they do on a given machine.

- :mod:`.costs`: the measured costs, each naming its file and field;
- :mod:`.sizing`: :func:`plan`, the demand (no agent waiting for a core);
- :mod:`.machine`: :func:`on_machine`, that demand on ``C`` cores: the CPU used, CPU-bound
  or not, the decisions per agent-minute it reaches;
- :mod:`.check`: a plan beside a measured village bench, within 25% or not;
- :mod:`.tables`: the ``plan-check`` renderer of ``piano docs``.
"""

from agent_runtime.app.plan.check import BAND, check, fit
from agent_runtime.app.plan.costs import (
    ROOT,
    Cost,
    Costs,
    PlanError,
    Sources,
    load_costs,
    read_result,
)
from agent_runtime.app.plan.machine import OnMachine, on_machine
from agent_runtime.app.plan.sizing import CPU_HEADROOM, MEMORY_HEADROOM, Plan, plan
from agent_runtime.app.plan.tables import render_check

__all__ = [
    "BAND",
    "CPU_HEADROOM",
    "MEMORY_HEADROOM",
    "ROOT",
    "Cost",
    "Costs",
    "OnMachine",
    "Plan",
    "PlanError",
    "Sources",
    "check",
    "fit",
    "load_costs",
    "on_machine",
    "plan",
    "read_result",
    "render_check",
]
