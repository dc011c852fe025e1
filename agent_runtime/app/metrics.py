"""``metrics.json``: counts, LLM usage per module, scheduling timings, bus and Redis figures."""

from __future__ import annotations

from typing import Any

import numpy as np

from agent_runtime.app.village_view import RunningVillage
from agent_runtime.clock import wall_time
from agent_runtime.state.sections import Goals, Social


def percentiles(values: list[float], ps: tuple[float, ...] = (50, 90, 99)) -> dict[str, float]:
    if not values:
        return {f"p{int(p)}": 0.0 for p in ps}
    arr = np.asarray(values, dtype=np.float64)
    return {f"p{int(p)}": round(float(np.percentile(arr, p)), 3) for p in ps}


def social_graph_of(v: RunningVillage) -> dict[str, dict[str, float]]:
    """Directed social graph: ``graph[a][b]`` is a's sentiment (0-10) towards b."""
    assert v.store is not None
    return {
        name: {b: p.sentiment for b, p in v.store.agent(name).get("social", Social).people.items()}
        for name in v.agents
    }


class Cancellations:
    """Event listener: what the controller did to skills its body was carrying out, per agent.

    - ``decision_cancelled``: a running skill dropped (reason ``stale``, ``model_decided``,
      or ``abandoned``: preempted and never resumed). These are the cancellations.
    - ``skill_preempted`` / ``skill_resumed`` / ``preempted_done``: set aside for an urgent
      perceived reason (``danger``, ``deposit_request``, ``request``), then resumed with
      what remained (or found done); an abandoned one is counted above, not here.
    - ``idle_ended``: an ``idle`` ("wait until something warrants action, at most N s")
      ended by a perceived reason. Not a broken word, reported on its own.
    """

    KINDS = {
        "decision_cancelled": "cancelled",
        "skill_preempted": "preempted",
        "skill_resumed": "resumed",
        "preempted_done": "done_before_resume",
        "idle_ended": "idle_ended",
    }

    def __init__(self) -> None:
        #: agent -> kind -> reason -> count
        self.by_agent: dict[str, dict[str, dict[str, int]]] = {}
        self.cancelled_skills: dict[str, int] = {}  # skill kind -> cancellations

    def __call__(self, record: dict[str, Any]) -> None:
        kind = self.KINDS.get(str(record.get("type")))
        if kind is None or not record.get("agent"):
            return
        reason = str(record.get("reason") or record.get("preempted_for") or "unknown")
        counts = self.by_agent.setdefault(str(record["agent"]), {}).setdefault(kind, {})
        counts[reason] = counts.get(reason, 0) + 1
        if kind == "cancelled":
            skill = str((record.get("running") or {}).get("skill", "?"))
            self.cancelled_skills[skill] = self.cancelled_skills.get(skill, 0) + 1

    def _totals(self, kind: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for kinds in self.by_agent.values():
            for reason, n in kinds.get(kind, {}).items():
                out[reason] = out.get(reason, 0) + n
        return dict(sorted(out.items()))

    def summary(self, agents: int, wall_s: float) -> dict[str, Any]:
        hours = max(1e-9, agents * wall_s / 3600.0)
        by_reason = self._totals("cancelled")
        total = sum(by_reason.values())
        ended = self._totals("idle_ended")
        return {
            "total": total,
            "per_agent_hour": round(total / hours, 3),
            "per_agent_hour_by_reason": {r: round(n / hours, 3) for r, n in by_reason.items()},
            "by_reason": by_reason,
            "by_skill": dict(sorted(self.cancelled_skills.items())),
            "preempted": self._totals("preempted"),
            "resumed": self._totals("resumed"),
            "done_before_resume": self._totals("done_before_resume"),
            "idle_ended": ended,
            "idle_ended_per_agent_hour": round(sum(ended.values()) / hours, 3),
            "by_agent": {
                a: {k: dict(c) for k, c in kinds.items()}
                for a, kinds in sorted(self.by_agent.items())
            },
        }


def collect_metrics(v: RunningVillage) -> dict[str, Any]:
    end = v.stopped_at or wall_time()
    wall = max(1e-9, end - v.started_at) if v.started_at else 0.0
    modules = v.metrics.module_totals()
    out: dict[str, Any] = {
        "run_id": v.run_id,
        "agents": len(v.agents) or len(v.resolved),
        "wall_s": round(wall, 3),
        "stop_reason": v.stop_reason,
        "events": dict(v.events.counts),
        "events_dropped": v.events.dropped,
        "modules": modules,
        "module_steps": sum(int(m["steps"]) for m in modules.values()),
        "module_errors": sum(int(m["errors"]) for m in modules.values()),
        "sched_lag_ms": percentiles(v.metrics.lags_ms),
        "unresponsive_agents": v.unresponsive(),
        "unresponsive_rule": {
            "decide_s": v.responsiveness.decide_s,
            "act_s": v.responsiveness.act_s,
        },
    }
    out["coherence"] = v.coherence.summary()
    cancellations = getattr(v, "cancellations", None)
    if isinstance(cancellations, Cancellations):
        out["skills_cancelled"] = cancellations.summary(out["agents"], wall)
    if v.store is not None:
        out["social_graph"] = social_graph_of(v)
        out["goal_histories"] = {
            name: [g.goal for g in v.store.agent(name).get("goals", Goals).history]
            for name in v.agents
        }
        out["redis"] = {"ops": v.store.ops, "flushes": v.store.flushes, "errors": v.store.errors}
    bus = v.bus
    if bus is not None:
        out["bus"] = {
            k: getattr(bus, k)
            for k in (
                "published",
                "received",
                "delivered",
                "sent",
                "dropped_outgoing",
                "reconnects",
            )
            if hasattr(bus, k)
        }
    svc = v.services
    if svc is not None and svc.llm is not None:
        llm = svc.llm.snapshot()
        out["llm"] = llm
        agent_hours = max(1e-9, out["agents"] * wall / 3600.0)
        out["llm_tokens_per_agent_hour"] = {
            m: round(s.get("total_tokens", 0) / agent_hours, 1)
            for m, s in llm.get("accounting", {}).get("by_module", {}).items()
        }
        if svc.llm.uses_llm:
            # the end-of-run table's figures: per module and in all, calls, tokens and dollars
            # per agent-hour (agents that decided x hours since the first decision)
            out["llm_agent_hours"] = round(svc.llm.accounting.agent_hours(), 4)
            out["llm_per_agent_hour"] = svc.llm.per_agent_hour()
    extra = getattr(v, "extra_metrics", None)
    if callable(extra):
        out.update(extra())
    return out
