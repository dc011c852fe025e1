"""Renders README.md of this folder from its result files: the runtime bench (1000 agents,
heuristic brain) and the 5-agent village bench, each run B A B A back to back, B the main
of before the typed messages and the narrowed module context, A after.

    python agent_runtime/app/results/messages-2026-12-02/render.py
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RUNS = ("B1", "A1", "B2", "A2")
#: the runtime bench again 30 minutes later, A at d958aa5 (main with both halves and the
#: comment clean-up), B again 71a0bd4; two B runs of the first try failed to start (the
#: worktree had no bots/node_modules), so the order is A A B A B
RUNS_AGAIN = ("A3", "A4", "B3", "A5", "B4")

RUNTIME: tuple[tuple[str, str], ...] = (
    ("cpu_us_per_agent_s", "CPU per agent-second (µs)"),
    ("cpu_pct", "CPU of the agents' processes (% of a core)"),
    ("services_cpu_pct", "Redis + broker CPU (% of a core)"),
    ("cc_decisions_per_s", "controller decisions per s"),
    ("skills_per_agent_s", "skills per agent-second"),
    ("sched_lag_ms_p50", "scheduling lag p50 (ms)"),
    ("sched_lag_ms_p99", "scheduling lag p99 (ms)"),
    ("redis_ops_per_s", "Redis commands per s"),
    ("mqtt_msgs_per_s", "broker messages per s"),
    ("rss_mb_per_agent", "RSS per agent (MB)"),
    ("startup_s", "start-up (s)"),
    ("unresponsive_agents", "unresponsive agents"),
    ("errors", "errors"),
)
VILLAGE: tuple[tuple[str, str], ...] = (
    ("agents_cpu", "agents' process CPU (% of a core)"),
    ("cpu_cores_per_agent", "all processes, cores per agent"),
    ("all_cpu", "all processes CPU (% of a core)"),
    ("decisions_per_agent_minute", "decisions per agent-minute"),
    ("skills_per_agent_minute", "skills per agent-minute"),
    ("lag_p50", "scheduling lag p50 (ms)"),
    ("lag_p99", "scheduling lag p99 (ms)"),
    ("join_all_seconds", "all bodies joined (s)"),
    ("kicks", "kicks"),
    ("module_errors", "module errors"),
    ("unresponsive_agents_peak", "unresponsive agents (peak)"),
)


def _village(d: dict[str, Any]) -> dict[str, Any]:
    minutes = d["agents"] * d["measured_seconds"] / 60
    return {
        **d,
        "agents_cpu": d["all_processes"]["by_kind"].get("other", {}).get("cpu_percent"),
        "all_cpu": d["all_processes"]["cpu_percent"],
        "decisions_per_agent_minute": round(d["decisions"] / minutes, 2),
        "skills_per_agent_minute": round(d["skills"] / minutes, 2),
        "lag_p50": d["sched_lag_ms"]["p50"],
        "lag_p99": d["sched_lag_ms"]["p99"],
    }


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _table(
    kind: str, rows: tuple[tuple[str, str], ...], names: tuple[str, ...] = RUNS
) -> list[str]:
    runs: dict[str, dict[str, Any]] = {}
    for r in names:
        path = HERE / f"{kind}-{r}.json"
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            runs[r] = _village(data) if kind == "village" else data
    out = [
        "| figure | " + " | ".join(names) + " | mean B | mean A | A vs B | median A vs B |",
        "|---|" + "---|" * (len(names) + 4),
    ]
    for key, label in rows:
        vals = [runs.get(r, {}).get(key) for r in names]
        b = [v for r, v in zip(names, vals, strict=True) if r[0] == "B" and v is not None]
        a = [v for r, v in zip(names, vals, strict=True) if r[0] == "A" and v is not None]
        mb = sum(b) / len(b) if b else None
        ma = sum(a) / len(a) if a else None
        change = f"{(ma - mb) / mb * 100:+.1f} %" if mb and ma is not None else "-"
        med_b = statistics.median(b) if b else None
        med_a = statistics.median(a) if a else None
        med = f"{(med_a - med_b) / med_b * 100:+.1f} %" if med_b and med_a is not None else "-"
        cells = [_fmt(v) for v in vals] + [_fmt(mb), _fmt(ma), change, med]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    prov = [runs[r]["provenance"] for r in names if r in runs]
    out.append("")
    out += [
        f"- {r}: commit {p.get('commit')}, {p.get('date')} - {p.get('finished')}, load "
        f"{p.get('load_average_before')} -> {p.get('load_average_after')}"
        for r, p in zip([r for r in names if r in runs], prov, strict=True)
    ]
    return out


def render() -> str:
    lines = [
        "# Typed bus messages and a narrowed module context, back to back",
        "",
        "Rendered by `render.py` from the result files beside it. Each bench ran four times on",
        "one machine (2 cores), alternating B (main before: 71a0bd4) and A (after), its four",
        "runs back to back under one hold of the heavy lock; A vs B compares the means.",
        "",
        "## `piano bench runtime --agents 1000 --heuristic --duration 60`",
        "",
        *_table("runtime", RUNTIME),
        "",
        "The same bench again (A: d958aa5, B: 71a0bd4) under one hold of the heavy lock (the",
        "medians read past a single stall such as A3's p99):",
        "",
        *_table("runtime", RUNTIME, RUNS_AGAIN),
        "",
        "## `piano bench village --agents 5 --duration 60` (heuristic brain, one embedded server)",
        "",
        *_table("village", VILLAGE),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    (HERE / "README.md").write_text(render(), encoding="utf-8")
