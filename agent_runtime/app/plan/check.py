"""A plan on a machine beside what a ``piano bench village`` run measured on that machine:
the CPU it used, its memory and its decisions per agent-minute, each within :data:`BAND` of
the measured or not (``piano plan --check RUN``), and the same comparison over many runs
(:func:`fit`: where the model holds and where it does not)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.plan.costs import ROOT, Costs, PlanError, read_result
from agent_runtime.app.plan.machine import OnMachine, on_machine
from agent_runtime.app.plan.sizing import Plan, plan
from agent_runtime.app.village_table import decisions_per_agent_minute

__all__ = ["BAND", "SATURATED", "check", "compare", "fit", "saturated"]

#: planned within this share of the measured counts as predicted
BAND = 0.25
#: a machine busier than this share of its cores was saturated (its run shows no more CPU)
SATURATED = 0.95


def saturated(measured: Mapping[str, Any]) -> bool | None:
    """Whether the run's machine was saturated (None: the run did not record its CPU)."""
    busy = measured.get("machine_cpu_percent")
    if busy is None:
        return None
    return float(busy) >= 100 * SATURATED * float(measured["provenance"]["cpus"])


def _row(what: str, planned: float, p_from: str, measured: float, m_from: str) -> dict[str, Any]:
    ratio = planned / measured if measured else float("inf")
    return {
        "what": what,
        "planned": planned,
        "planned_from": p_from,
        "measured": round(measured, 2),
        "measured_from": m_from,
        "ratio": round(ratio, 2),
        "within": abs(ratio - 1) <= BAND,
    }


def compare(p: Plan, m: OnMachine, measured: Mapping[str, Any], rel: str) -> list[dict[str, Any]]:
    """The plan's CPUs used, memory and decisions per agent-minute on the run's machine beside
    the run's (``rel`` names its file in each row's ``measured_from``)."""
    used = measured["all_processes"]
    pace_from = (
        "decisions_per_agent_minute"
        if "decisions_per_agent_minute" in measured
        else "decisions x 60 / agents / measured_seconds"
    )
    return [
        _row(
            "CPUs used (cores)",
            m.cpus_used,
            m.sources["cpus_used"],
            float(used["cpu_percent"]) / 100,
            f"{rel}: all_processes.cpu_percent / 100",
        ),
        _row(
            "memory (GB)",
            p.memory_gb,
            p.sources["memory_gb"],
            float(used["rss_mb"]) / 1024,
            f"{rel}: all_processes.rss_mb / 1024",
        ),
        _row(
            "decisions per agent-minute",
            m.decisions_per_agent_minute,
            m.sources["decisions_per_agent_minute"],
            decisions_per_agent_minute(measured),
            f"{rel}: {pace_from}",
        ),
    ]


def check(p: Plan, m: OnMachine, rel: str, root: Path = ROOT) -> dict[str, Any]:
    """Plan ``p`` on machine ``m`` beside the village bench at ``rel``: the result to commit."""
    measured = read_result(rel, root)
    if int(measured["agents"]) != p.agents or not p.embodied:
        raise PlanError(f"{rel}: a bench of {measured['agents']} agents with bodies; "
                        f"the plan is for {p.agents}{' with bodies' if p.embodied else ''}")  # fmt: skip
    if (measured.get("launcher") == "ray") != p.ray:
        raise PlanError(f"{rel}: launcher {measured.get('launcher')}; plan it "
                        f"{'with' if not p.ray else 'without'} --cluster ray")  # fmt: skip
    rows = compare(p, m, measured, rel)
    return {
        "kind": "plan check",
        "band": BAND,
        "measured_file": rel,
        "measured_run": {
            "agents": measured["agents"],
            "shards": measured["shards"],
            "launcher": measured.get("launcher") or "one process",
            "kicks": measured["kicks"],
            "machine_cores": measured["provenance"]["cpus"],
            "machine_cpu_percent": measured.get("machine_cpu_percent"),
            "saturated": saturated(measured),
            "date": measured["provenance"]["date"],
            "commit": measured["provenance"]["commit"],
        },
        "plan": p.as_dict(),
        "on_machine": m.as_dict(),
        "rows": rows,
        "all_within": all(r["within"] for r in rows),
    }


def fit(rel: str, costs: Costs, root: Path = ROOT) -> dict[str, Any]:
    """The model against one village bench at ``rel``: the plan for its agents on its
    machine's cores beside what it measured."""
    measured = read_result(rel, root)
    cores = float(measured["provenance"]["cpus"])
    p = plan(int(measured["agents"]), costs, embodied=True, cores_per_node=cores,
             memory_gb_per_node=1.0, llm=False, ray=measured.get("launcher") == "ray")  # fmt: skip
    m = on_machine(p, cores=cores)
    return {"file": rel, "measured": measured, "plan": p, "on_machine": m,
            "rows": compare(p, m, measured, rel)}  # fmt: skip
