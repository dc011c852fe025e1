"""``piano bench runtime`` results side by side, as a Markdown table for the docs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.doc_figures import result_files

__all__ = ["render_runtime_runs"]


def render_runtime_runs(source: Path, options: Mapping[str, str]) -> str:
    """One row per result file (``source``, then ``with=B.json,C.json`` beside it): when,
    the launcher, decisions per second, lag, errors, unresponsive agents, restarts, memory
    and start-up."""
    files = result_files(source, options)
    rows = [
        "| run (UTC) | launcher | agents / workers | decisions/s | lag p50 / p99 (ms) "
        "| errors | unresponsive | restarts | MB | start-up (s) | load before |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in files:
        r: dict[str, Any] = json.loads(f.read_text())
        prov = r.get("provenance", {})
        when = str(prov.get("date", "?"))[11:16]
        load = prov.get("load_average_before") or ["?"]
        rows.append(
            f"| {when} | {r.get('launcher', 'process')} | {r['agents']:,} / {r['workers']} "
            f"| {r['cc_decisions_per_s']:g} | {r['sched_lag_ms_p50']:g} / {r['sched_lag_ms_p99']:g} "
            f"| {r['errors']} | {r['unresponsive_agents']} | {r['worker_restarts']} "
            f"| {r['rss_mb']:.0f} | {r['startup_s']:g} | {load[0]} |"
        )
    return "\n".join(rows) + "\n"
