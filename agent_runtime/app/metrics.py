"""``metrics.json``: counts, LLM usage per module, scheduling timings, bus and Redis figures."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from agent_runtime.state.sections import Goals, Social

if TYPE_CHECKING:
    from agent_runtime.app.village import Village


def percentiles(values: list[float], ps: tuple[float, ...] = (50, 90, 99)) -> dict[str, float]:
    if not values:
        return {f"p{int(p)}": 0.0 for p in ps}
    arr = np.asarray(values, dtype=np.float64)
    return {f"p{int(p)}": round(float(np.percentile(arr, p)), 3) for p in ps}


def social_graph_of(v: Village) -> dict[str, dict[str, float]]:
    """Directed social graph: ``graph[a][b]`` is a's sentiment (0-10) towards b."""
    assert v.store is not None
    return {
        name: {b: p.sentiment for b, p in v.store.agent(name).get("social", Social).people.items()}
        for name in v.agents
    }


class Cancellations:
    """Event listener: ``decision_cancelled`` events (the controller replacing a running
    skill) counted per agent and reason."""

    def __init__(self) -> None:
        self.by_agent: dict[str, dict[str, int]] = {}

    def __call__(self, record: dict[str, Any]) -> None:
        if record.get("type") == "decision_cancelled" and record.get("agent"):
            counts = self.by_agent.setdefault(str(record["agent"]), {})
            reason = str(record.get("reason", "unknown"))
            counts[reason] = counts.get(reason, 0) + 1

    def summary(self, agents: int, wall_s: float) -> dict[str, Any]:
        hours = max(1e-9, agents * wall_s / 3600.0)
        by_reason: dict[str, int] = {}
        for counts in self.by_agent.values():
            for reason, n in counts.items():
                by_reason[reason] = by_reason.get(reason, 0) + n
        total = sum(by_reason.values())
        return {
            "total": total,
            "per_agent_hour": round(total / hours, 3),
            "per_agent_hour_by_reason": {
                r: round(n / hours, 3) for r, n in sorted(by_reason.items())
            },
            "by_agent": {a: dict(c) for a, c in sorted(self.by_agent.items())},
        }


def collect_metrics(v: Village) -> dict[str, Any]:
    end = v.stopped_at or time.time()
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
    extra = getattr(v, "extra_metrics", None)
    if callable(extra):
        out.update(extra())
    return out
