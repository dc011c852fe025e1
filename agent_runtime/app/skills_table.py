"""``piano bench skills`` results as Markdown tables for the docs.

Registered as renderers of ``piano docs`` (:mod:`agent_runtime.app.doc_figures`):

* ``skill-steps FILE agents=N [steps=a,b]``: one row per skill step of the level with N
  agents at once (runs, success, time p50/p95, failures by kind, where the time went);
* ``skill-climbs FILE agents=N``: one row per tech-tree climb of that level.

Each table ends with a line saying when, on which commit and under what load it was measured
(the file's ``provenance``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["render_skill_climbs", "render_skill_steps"]


def _level(source: Path, options: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    r: dict[str, Any] = json.loads(source.read_text())
    if r.get("bench") != "skills":
        raise ValueError(f"{source.name} is not a `piano bench skills` result")
    if "agents" not in options:
        raise ValueError("want agents=N (the level of agents at once)")
    n = int(options["agents"])
    for level in r["levels"]:
        if level["agents"] == n:
            return r, level
    have = ", ".join(str(lv["agents"]) for lv in r["levels"])
    raise ValueError(f"{source.name} has no level with {n} agents (it has {have})")


def _measured(r: Mapping[str, Any]) -> str:
    prov = r.get("provenance", {})
    date, end = str(prov.get("date", "?")), str(prov.get("finished", "?"))
    before = (prov.get("load_average_before") or ["?"])[0]
    after = (prov.get("load_average_after") or ["?"])[0]
    return (
        f"(measured {date[:10]} {date[11:16]}-{end[11:16]} UTC, commit {prov.get('commit') or '?'}, "
        f"load average {before} -> {after} on {prov.get('cpus', '?')} cores: "
        f"`{prov.get('command', '?')}`)"
    )


def _s(v: Any) -> str:
    return "-" if v is None else f"{v:.1f}"


def render_skill_steps(source: Path, options: Mapping[str, str]) -> str:
    r, level = _level(source, options)
    skills: dict[str, Any] = level.get("skills", {})
    order = [s for s in options.get("steps", "").split(",") if s] or list(skills)
    rows = [
        "| step | runs | success | p50 / p95 s | failures | per run: planning ms "
        "(searches, A* nodes) | walk / dig / drops ms | unstuck |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in order:
        if name not in skills:
            raise ValueError(f"{source.name} has no step {name!r} at {level['agents']} agents")
        s = skills[name]
        t, ms = s["time_s"], s.get("per_run_ms", {})
        failures = ", ".join(f"{n} `{k}`" for k, n in sorted(s["failures"].items())) or "-"
        rows.append(
            f"| {name} | {s['runs']} | {s['success_rate'] * 100:.0f} % "
            f"| {_s(t['p50'])} / {_s(t['p95'])} | {failures} "
            f"| {ms.get('plan_ms', 0)} ({ms.get('plans', 0)}, {ms.get('nodes', 0)}) "
            f"| {ms.get('walk_ms', 0)} / {ms.get('dig_ms', 0)} / {ms.get('drops_ms', 0)} "
            f"| {ms.get('unstuck', 0)} |"
        )
    return "\n".join([*rows, "", _measured(r)]) + "\n"


def render_skill_climbs(source: Path, options: Mapping[str, str]) -> str:
    r, level = _level(source, options)
    climbs: list[dict[str, Any]] = level.get("climb") or []
    if not climbs:
        raise ValueError(f"{source.name} has no climbs at {level['agents']} agents (--no-climb)")
    rows = [
        "| climb | iron ingot | s | steps | failed steps | why it stopped |",
        "|---|---|---|---|---|---|",
    ]
    for i, c in enumerate(climbs, 1):
        rows.append(
            f"| {i} | {'yes' if c['success'] else '**no**'} | {c['time_s']:.1f} | {c['steps']} "
            f"| {c['failed_steps']} | {c['why'] or '-'} |"
        )
    return "\n".join([*rows, "", _measured(r)]) + "\n"
