"""``piano bench bodies`` results side by side, as a Markdown table for the docs.

Registered as the ``bodies-runs`` renderer of ``piano docs``
(:mod:`agent_runtime.app.doc_figures`): ``<!-- figures: bodies-runs A.json with=B.json,C.json -->``
gives one row per result file, in that order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.bench_output import measured_on
from agent_runtime.app.doc_figures import markdown_table, result_files

__all__ = ["render_bodies_runs"]

_HEAD = (
    "| run (UTC) | commit | N | bots/process | transport | load avg before -> after "
    "| connect all (s) | snapshots/s requested -> achieved | observe latency p50 / p99 / max (ms) "
    "| skills done (failed) | kicks / disconnects | events dropped | CPU % Python / Node bodies / server "
    "| RSS MB Python / Node bodies / server | Node procs |"
)


def _n(v: Any, fmt: str = ".1f") -> str:
    return "-" if v is None else format(v, fmt)


def _row(r: Mapping[str, Any]) -> str:
    on = measured_on(r)
    lat, cpu, rss = r["observe_latency_ms"], r["cpu_percent"], r["rss_mb_max"]
    skills = (
        f"{r['skills_completed']} ({r['skills_failed']})" if r.get("skills") else "- (standing)"
    )
    dropped = r.get("events_dropped_python", 0) + r.get("events_dropped_node", 0)
    return (
        f"| {on.when} | {on.commit} | {r['bots']} "
        f"| {r['bots_per_process'] or '0 (in bridge)'} | {r['transport']} | {on.load} "
        f"| {_n(r.get('connect_all_s'))} "
        f"| {_n(r['observations_per_s_requested'])} -> {_n(r['observations_per_s_achieved'])} "
        f"| {_n(lat['p50'])} / {_n(lat['p99'])} / {_n(lat['max'], '.0f')} "
        f"| {skills} | {r['kicks']} / {r['disconnects']} | {dropped} "
        f"| {_n(cpu['python'])} / {_n(cpu['node_bodies'])} / {_n(cpu['server'])} "
        f"| {_n(rss['python'], '.0f')} / {_n(rss['node_bodies'], '.0f')} / {_n(rss['server'], '.0f')} "
        f"| {r['node_processes']} |"
    )


def render_bodies_runs(source: Path, options: Mapping[str, str]) -> str:
    """One row per result file (``source``, then ``with=B.json,C.json`` beside it)."""
    rows = []
    for f in result_files(source, options):
        r: dict[str, Any] = json.loads(f.read_text())
        if r.get("bench") != "bodies":
            raise ValueError(f"{f.name} is not a `piano bench bodies` result")
        rows.append(_row(r))
    return markdown_table(_HEAD, rows)
