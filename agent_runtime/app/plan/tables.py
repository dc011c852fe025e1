"""The plan's figures in the docs (the ``plan-check`` renderer of ``piano docs``):

- a ``piano plan --check`` result file: the plan on the run's machine beside the run;
- ``table=calibration``: the village runs the plan with bodies is calibrated on, and their line;
- ``table=fit`` (the file and those ``with=`` names): the model against each village bench.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_runtime.app.doc_figures import markdown_table, result_files
from agent_runtime.app.plan.check import fit
from agent_runtime.app.plan.costs import ROOT, Sources, load_costs, read_result
from agent_runtime.app.village_table import decisions_per_agent_minute

__all__ = ["render_check"]


def _when(measured: Mapping[str, Any]) -> str:
    return str(measured["provenance"]["date"])[:16].replace("T", " ")


def _render_calibration(root: Path = ROOT) -> str:
    """The village runs the plan with bodies is calibrated on, and the line through them."""
    src, costs = Sources(), load_costs(root)
    rows = []
    for rel in src.villages:
        r = read_result(rel, root)
        used = r["all_processes"]
        servers = sum(float(v) for v in r.get("server_cpu_percent", {}).values())
        rows.append(
            f"| {_when(r)} | {r['agents']} "
            f"| {used['cpu_percent']:g} | {servers:g} | {used['rss_mb']:,.0f} "
            f"| {decisions_per_agent_minute(r):.2f} | {r['sched_lag_ms']['p99']:g} | {r['kicks']} |"
        )
    per_cpu, per_mb = costs.embodied_cores_per_agent.value, costs.embodied_mb_per_agent.value
    fixed_cpu, fixed_mb = costs.embodied_fixed_cores.value, costs.embodied_fixed_mb.value
    pace = costs.embodied_decisions_per_agent_minute.value
    rows.append(
        f"| **the line**: per agent | | **{100 * per_cpu:.2f}** | | **{per_mb:.1f}** "
        f"| **{pace:.2f}** (mean) | | |"
    )
    rows.append(f"| at 0 agents | | {100 * fixed_cpu:.1f} | | {fixed_mb:,.0f} | | | |")
    head = (
        "| run (UTC) | agents | CPU % of one core, all processes | of it the server "
        "| RSS MB | decisions per agent-minute | lag p99 (ms) | kicks |"
    )
    return markdown_table(head, rows)


def _ratio(row: Mapping[str, Any]) -> str:
    return f"{row['ratio']:.2f}" + ("" if row["within"] else " (outside)")


def _machine_busy(measured: Mapping[str, Any]) -> str:
    busy = measured.get("machine_cpu_percent")
    full = 100 * int(measured.get("provenance", {}).get("cpus", 0))
    return "not recorded" if busy is None else f"{float(busy):g} of {full}"


def _render_fit(source: Path, options: Mapping[str, str]) -> str:
    """One row a village bench: the plan for its agents on its machine beside it."""
    costs, calibration, rows = load_costs(), set(Sources().villages), []
    fits = [
        fit(str(path.resolve().relative_to(ROOT)), costs) for path in result_files(source, options)
    ]
    for f in sorted(fits, key=lambda f: str(f["measured"]["provenance"]["date"])):
        r, m = f["measured"], f["on_machine"]
        cpu, mem, pace = f["rows"]
        launcher = (
            f"{r['launcher']}, {r['workers']} workers" if r.get("launcher") else "one process"
        )
        if f["file"] in calibration:
            launcher += " (calibration)"
        rows.append(
            f"| {_when(r)} | {r['provenance']['commit']} | {launcher} "
            f"| {r['agents']} / {r['shards']} | {f['plan'].cpus:g} ({m.cpu_load:.2f} x the "
            f"{m.cores:g} cores) | {cpu['planned']:g} / {cpu['measured']:g} | {_ratio(cpu)} "
            f"| {mem['planned']:g} / {mem['measured']:g} | {_ratio(mem)} "
            f"| {pace['planned']:.2f} / {pace['measured']:.2f} | {_ratio(pace)} "
            f"| {_machine_busy(r)} | {r['kicks']} | {r['measured_seconds']:g} |"
        )
    head = (
        "| run (UTC) | commit | launcher | agents / shards | CPUs planned (demand) "
        "| CPUs used: model / measured | ratio | memory GB: plan / measured | ratio "
        "| decisions per agent-minute: model / measured "
        "| ratio | machine CPU % | kicks | seconds measured |"
    )
    return markdown_table(head, rows)


def _render_check_file(source: Path, sources: bool) -> str:
    """A ``piano plan --check`` result: its rows, then (``sources``) where each figure comes
    from."""
    c = json.loads(source.read_text())
    p, m, run = c["plan"], c["on_machine"], c["measured_run"]
    band = f"{c['band']:.0%}"
    full = 100 * int(run["machine_cores"])
    busy = run["machine_cpu_percent"]
    measured_bound = (
        "not recorded" if run["saturated"] is None
        else f"{'yes' if run['saturated'] else 'no'} (machine CPU {busy:g}% of {full}%)"
    )  # fmt: skip
    rows = [
        f"| CPUs wanted (the plan's demand) | {p['cpus']:g} | - (a run shows at most its "
        f"machine's {run['machine_cores']} cores) | | |",
        f"| CPU-bound | {'yes' if m['cpu_bound'] else 'no'} (the demand is "
        f"{m['cpu_load']:.2f} x the cores) | {measured_bound} | | |",
    ]
    notes = [f"- CPUs wanted: {p['sources']['cpus']}", f"- CPU-bound: {m['sources']['cpu_load']}"]
    for r in c["rows"]:
        rows.append(
            f"| {r['what']} | {r['planned']:.2f} | {r['measured']:.2f} | {r['ratio']:.2f} "
            f"| {'yes' if r['within'] else 'no'} |"
        )
        notes.append(f"- {r['what']}: planned from {r['planned_from']}; "
                     f"measured: {r['measured_from']}")  # fmt: skip
    head = (
        f"| {p['agents']} agents with bodies on {m['cores']:g} cores | planned | measured "
        f"| planned / measured | within {band} |"
    )
    table = markdown_table(head, rows)
    return table + "\n" + "\n".join(notes) + "\n" if sources else table


def render_check(source: Path, options: Mapping[str, str]) -> str:
    """``source`` a ``piano plan --check`` result file; with ``table=calibration`` the runs
    the plan is calibrated on (``source``: the first), with ``table=fit`` the model against
    ``source`` and the village benches ``with=`` names; ``sources=no``: a check without the
    list of where its figures come from."""
    if options.get("table") == "calibration":
        return _render_calibration()
    if options.get("table") == "fit":
        return _render_fit(source, options)
    return _render_check_file(source, sources=options.get("sources") != "no")
