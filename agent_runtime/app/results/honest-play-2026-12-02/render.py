"""Render README.md of this folder from the honest-play result files beside it.

    python agent_runtime/app/results/honest-play-2026-12-02/render.py

Each file is one run: the 100-agent bench's own JSON (``piano bench village``), or a summary
of a 5-agent village or a skills bench made from that run's server log (its ``[piano]
refused`` lines and the ``[piano] refusals at exit`` total).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

HEAD = """# Honest play against the checks of issue 47 (movement, inventories and reach, names)

What the server refused OUR bodies (a false alarm each), per run. Rendered from the JSON
files in this folder by `render.py`; commands and commits are in each file. "at exit" is
the server's whole count as it stopped (`[piano] refusals at exit`, all kinds, all
players); runs before that line existed give the refusals logged (the first 50).

| file | commit | run | refusals of our bodies | kicks (reasons) | load |
|---|---|---|---|---|---|
"""


def _at_exit(x: dict[str, Any]) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in x["byKind"].items())
    most = sorted(x["byPlayer"].items(), key=lambda kv: -kv[1])[:3]
    players = ", ".join(f"{k} {v}" for k, v in most)
    return f"{x['total']} in all at exit" + (f" ({kinds}; most: {players})" if x["total"] else "")


def _bench_row(name: str, r: dict[str, Any]) -> str:
    srv = r["all_processes"]["by_kind"].get("minecraft server", {})
    players = sum(v or 0 for v in (r.get("bots_per_shard") or {}).values())
    ref = r.get("refusals")
    refused = (
        "not counted (main has no GET /refusals)"
        if ref is None
        else str(sum((v or {}).get("total", 0) for v in ref.values()))
    )
    per = round(srv.get("cpu_percent", 0) / players, 3) if players else None
    reasons = ", ".join(k[-40:] + ": " + str(v) for k, v in r["kick_reasons"].items())
    return (
        f"| {name} | {r['provenance']['commit']} | 100-agent 2-shard bench, "
        f"{r['measured_seconds']} s | {refused} | {r['kicks_whole_run']} ({reasons}) | "
        f"server CPU {srv.get('cpu_percent')}% for {players} players at the end = {per}% "
        f"per player; machine {r['machine_cpu_percent']}% |"
    )


def _village_row(name: str, r: dict[str, Any]) -> str:
    x = r.get("refusals_at_exit")
    refused = _at_exit(x) if x else f"{r['refusals']['total']} logged"
    skills = ", ".join(k + " " + str(v["runs"]) for k, v in r["skills"].items())
    return (
        f"| {name} | {r['commit']} | {r['bench']} ({r['command']}), Minecraft "
        f"{r['minecraft_version']}, {r['wall_s']} s | {refused} | {r['kicks']} | "
        f"skills run: {skills} |"
    )


def _skills_row(name: str, r: dict[str, Any]) -> str:
    x = r.get("refusals_at_exit")
    if x:
        refused = _at_exit(x)
    else:
        kinds = ", ".join(k + " " + str(v) for k, v in r["logged_by_kind"].items())
        more = " (and more, only counted)" if r["more_than_logged"] else ""
        refused = f"{r['logged_refusals']} logged{more}" + (f": {kinds}" if kinds else "")
    kicks = len(r["kick_lines"]) if "kick_lines" in r else ""
    figures = r.get("figures", "skills-1.21.4-s1.json")
    return (
        f"| {name} | {r['commit']} | skills bench ({r['command']}) | {refused} | {kicks} | "
        f"the bench's own figures: {figures} |"
    )


def render(folder: Path = HERE) -> str:
    rows = []
    for f in sorted(folder.glob("*.json")):
        r = json.loads(f.read_text())
        bench = r.get("bench", "")
        if bench == "village" and "all_processes" in r:
            rows.append(_bench_row(f.name, r))
        elif bench.startswith("honest play: 5-agent"):
            rows.append(_village_row(f.name, r))
        elif bench.startswith("honest play: skills"):
            rows.append(_skills_row(f.name, r))
    return HEAD + "\n".join(rows) + "\n"


if __name__ == "__main__":
    (HERE / "README.md").write_text(render())
