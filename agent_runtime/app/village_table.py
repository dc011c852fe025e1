"""``piano bench village`` results side by side, as a Markdown table for the docs.

Registered as the ``village-runs`` renderer of ``piano docs``
(:mod:`agent_runtime.app.doc_figures`): ``<!-- figures: village-runs A.json with=B.json -->``
gives one row per result file, in that order, and each row after the first says its
decisions per agent-minute and lag p99 as a share of the first row's (the comparison the
cluster's target is stated in). With ``table=processes`` the block is instead what the
run's processes cost over the measured window by kind (``all_processes.by_kind``: the
coordinator, workers, body hosts, servers, and with ``--ray-nodes`` Ray's own), one column
per result file. With ``table=per-agent`` it is one row per file of what an agent cost:
the CPU of every process of the run per agent (% of one core), and of it the body hosts',
the servers', the workers' and the rest's (the coordinator or one-process village, Redis,
the broker), beside kicks, lag p99, decisions per agent-minute and the CPU a decision cost
(core-seconds of all the run's processes over its decisions: runs whose agents decided at
different paces compare by it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.doc_figures import markdown_table, result_files

__all__ = ["decisions_per_agent_minute", "render_village_runs"]

_HEAD = (
    "| run (UTC) | launcher | agents / workers / shards | decisions per agent-minute "
    "| lag p50 / p90 / p99 (ms, worst worker) | vs first row: decisions / p99 | kicks "
    "| unresponsive end (peak) | errors | restarts workers / servers | machine CPU % "
    "| load before -> after |"
)


def _launcher(r: Mapping[str, Any]) -> str:
    launcher = str(r.get("launcher", "one process"))
    if launcher == "ray" and r.get("ray_nodes"):
        return f"ray, {r['ray_nodes']} nodes"
    return launcher


def decisions_per_agent_minute(r: Mapping[str, Any]) -> float:
    if "decisions_per_agent_minute" in r:
        return float(r["decisions_per_agent_minute"])
    return float(r["decisions"]) * 60 / int(r["agents"]) / float(r["measured_seconds"])


def _share(value: float, first: float) -> str:
    return f"{100 * value / first:.0f}%" if first else "-"


def _row(r: Mapping[str, Any], first: Mapping[str, Any] | None) -> str:
    prov = r.get("provenance", {})
    when = str(prov.get("date", "?"))
    before = (prov.get("load_average_before") or ["?"])[0]
    after = (prov.get("load_average_after") or ["?"])[0]
    lag = r["sched_lag_ms"]
    rate = decisions_per_agent_minute(r)
    vs = "-"
    if first is not None:
        vs = (
            f"{_share(rate, decisions_per_agent_minute(first))} / "
            f"{_share(float(lag['p99']), float(first['sched_lag_ms']['p99']))}"
        )
    unresponsive = r.get("unresponsive_agents_end", 0)
    peak = r.get("unresponsive_agents_peak", unresponsive)
    errors = r.get("errors", r.get("module_errors", 0))
    return (
        f"| {when[:10]} {when[11:16]} | {_launcher(r)} "
        f"| {r['agents']} / {r.get('workers', 1)} / {r['shards']} | {rate:.2f} "
        f"| {lag['p50']:g} / {lag['p90']:g} / {lag['p99']:g} | {vs} | {r['kicks']} "
        f"| {unresponsive} ({peak}) | {errors} "
        f"| {r.get('worker_restarts', 0)} / {r.get('server_restarts', 0)} "
        f"| {r.get('machine_cpu_percent', '-')} | {before} -> {after} |"
    )


def _cell(r: Mapping[str, Any], kind: str) -> str:
    row = r["all_processes"]["by_kind"].get(kind)
    if row is None:
        return "-"
    return f"{row['cpu_percent']:g} / {row['rss_mb']:,.0f} / {row['processes']}"


def _processes(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """What each kind of process cost in each run: CPU % of one core / MB / processes."""
    for name, r in runs:
        if "by_kind" not in r.get("all_processes", {}):
            raise ValueError(f"{name}: no all_processes.by_kind (a result from before it)")
    kinds: list[str] = []
    for _, r in runs:
        kinds += [k for k in r["all_processes"]["by_kind"] if k not in kinds]
    head = "| process (CPU % of one core / RSS MB / count) | " + " | ".join(
        f"{_launcher(r)}, {str(r.get('provenance', {}).get('date', '?'))[11:16]}" for _, r in runs
    )
    rows = [head + " |", "|" + "---|" * (len(runs) + 1)]
    rows += [f"| {k} | " + " | ".join(_cell(r, k) for _, r in runs) + " |" for k in kinds]
    total = " | ".join(
        f"**{r['all_processes']['cpu_percent']:g} / {r['all_processes']['rss_mb']:,.0f} / "
        f"{r['all_processes']['processes']}**"
        for _, r in runs
    )
    rows.append(f"| all | {total} |")
    return "\n".join(rows) + "\n"


_PER_AGENT_HEAD = (
    "| result | run (UTC) | commit | agents / workers / shards | CPU % of one core, all processes "
    "| per agent | of it body hosts / servers / workers / rest | machine CPU % | kicks "
    "| lag p99 (ms) | decisions per agent-minute | CPU core-s per decision |"
)
_SPLIT = ("body host", "minecraft server", "piano worker")


def _per_agent_row(name: str, r: Mapping[str, Any]) -> str:
    n = int(r["agents"])
    used = r["all_processes"]
    kinds = used.get("by_kind")
    if kinds is None:
        raise ValueError("no all_processes.by_kind (a result from before it)")
    parts = [float(kinds.get(k, {}).get("cpu_percent", 0.0)) for k in _SPLIT]
    rest = float(used["cpu_percent"]) - sum(parts)
    split = " / ".join(f"{v / n:.2f}" for v in [*parts, rest])
    prov = r.get("provenance", {})
    when = str(prov.get("date", "?"))
    return (
        f"| {name.removesuffix('.json')} | {when[:10]} {when[11:16]} | {prov.get('commit', '?')} "
        f"| {n} / {r.get('workers', 1)} / {r['shards']} | {float(used['cpu_percent']):g} "
        f"| **{float(used['cpu_percent']) / n:.2f}** | {split} "
        f"| {r.get('machine_cpu_percent', '-')} | {r['kicks']} "
        f"| {r['sched_lag_ms']['p99']:g} | {decisions_per_agent_minute(r):.2f} "
        f"| {_per_decision(r)} |"
    )


def _per_decision(r: Mapping[str, Any]) -> str:
    """Core-seconds of every process of the run per decision over the measured window."""
    decisions = int(r.get("decisions", 0))
    if decisions <= 0:
        return "-"
    cores = float(r["all_processes"]["cpu_percent"]) / 100
    return f"{cores * float(r['measured_seconds']) / decisions:.3f}"


def render_village_runs(source: Path, options: Mapping[str, str]) -> str:
    """One row per result file (``source``, then ``with=B.json,C.json`` beside it); with
    ``table=processes`` the cost by kind of process, one column per file; with
    ``table=per-agent`` what an agent cost, one row per file."""
    runs: list[tuple[str, dict[str, Any]]] = []
    for f in result_files(source, options):
        r: dict[str, Any] = json.loads(f.read_text())
        if r.get("bench") != "village":
            raise ValueError(f"{f.name}: not a `piano bench village` result")
        runs.append((f.name, r))
    if options.get("table") == "processes":
        return _processes(runs)
    if options.get("table") == "per-agent":
        return markdown_table(_PER_AGENT_HEAD, [_per_agent_row(name, r) for name, r in runs])
    rows = [_HEAD, "|" + "---|" * (_HEAD.count(" | ") + 1)]
    first: dict[str, Any] | None = None
    for _, r in runs:
        rows.append(_row(r, first))
        first = first or r
    return "\n".join(rows) + "\n"
