"""``piano bench runtime`` results in full, one row per file, as a Markdown table for the docs.

Registered as the ``runtime-detail`` renderer of ``piano docs``
(:mod:`agent_runtime.app.doc_figures`): ``<!-- figures: runtime-detail A.json with=B.json -->``.
Beside :mod:`agent_runtime.app.runtime_table` (the short form), this one has the workload
(skill time, skills and LLM calls per agent-second), the CPU per agent, the worst module's
cadence error, the lag per worker and the traffic to Redis and the broker.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.bench_output import measured_on
from agent_runtime.app.doc_figures import markdown_table, result_files

__all__ = ["render_runtime_detail"]

_HEAD = (
    "| run (UTC) | commit | agents / workers (launcher) | event loop | `--skill-seconds` "
    "| CPU µs per agent-s (% of one core) | decisions/s | skills per agent-s "
    "| LLM calls per agent-s | lag p50 / p99 ms (worst worker) | lag p90 ms per worker "
    "| cadence error (worst module) | unresponsive | errors | Redis cmds/s | broker msgs/s "
    "| RSS MB per agent | load avg before -> after |"
)


def _worst(by_module: Mapping[str, float]) -> str:
    if not by_module:
        return "-"
    name, err = max(by_module.items(), key=lambda kv: abs(kv[1]))
    return f"{err:+.2f}% ({name})"


def _row(r: Mapping[str, Any]) -> str:
    on = measured_on(r)
    p90 = " / ".join(f"{w['p90']:.1f}" for w in r.get("sched_lag_ms_per_worker") or []) or "-"
    errors = str(r["errors"])
    if r.get("errors_by_kind"):
        errors += " (" + ", ".join(f"{k}: {n}" for k, n in r["errors_by_kind"].items()) + ")"
    return (
        f"| {on.when} | {on.commit} "
        f"| {r['agents']:,} / {r['workers']} ({r.get('launcher', 'process')}) "
        f"| {r.get('event_loop', '?')} | {r['skill_seconds']:g} "
        f"| {r['cpu_us_per_agent_s']:,.0f} ({r['cpu_pct']:.0f}%) | {r['cc_decisions_per_s']:.0f} "
        f"| {r['skills_per_agent_s']:.3f} | {r['llm_calls_per_agent_s']:.2f} "
        f"| {r['sched_lag_ms_p50']:.1f} / {r['sched_lag_ms_p99']:.1f} | {p90} "
        f"| {_worst(r.get('cadence_error_by_module_pct') or {})} | {r['unresponsive_agents']} "
        f"| {errors} | {r['redis_ops_per_s']:,.0f} | {r['mqtt_msgs_per_s']:,.0f} "
        f"| {r['rss_mb_per_agent']:.2f} | {on.load} |"
    )


def render_runtime_detail(source: Path, options: Mapping[str, str]) -> str:
    """One row per result file (``source``, then ``with=B.json,C.json`` beside it)."""
    rows = (_row(json.loads(f.read_text())) for f in result_files(source, options))
    return markdown_table(_HEAD, rows)
