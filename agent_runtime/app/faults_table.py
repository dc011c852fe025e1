"""The fault suite's report (``piano faults --json-out``) as a Markdown table for the docs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["render_durability", "render_faults"]


def _checks(fault: Mapping[str, Any]) -> str:
    path = fault.get("data_path")
    if not path:
        return "-"
    return ", ".join(f"{k} {'yes' if v else '**no**'}" for k, v in path.items())


def render_faults(source: Path, options: Mapping[str, str]) -> str:
    """One row per fault: recovered, seconds to the first decision after it, data path checks,
    decisions and errors in the window; then when, on which commit and under what load."""
    data = json.loads(source.read_text())
    report = data.get("report", data)
    rows = [
        "| fault | recovered | seconds to recover | data path (checked from outside) "
        "| decisions in window | errors in window |",
        "|---|---|---|---|---|---|",
    ]
    for f in report["faults"]:
        secs = f.get("seconds_to_recover")
        rows.append(
            f"| {f['fault']} | {'yes' if f['recovered'] else '**no**'} "
            f"| {'-' if secs is None else f'{secs:g}'} | {_checks(f)} "
            f"| {f.get('decisions_in_window', '-')} | {f.get('errors_in_window', '-')} |"
        )
    prov = data.get("provenance", data)
    load = prov.get("load_average_before")
    rows += [
        "",
        f"`{prov.get('command', 'piano faults')}`, {prov.get('date', '?')}, commit "
        f"{prov.get('commit', '?')}, load average before {load}; "
        f"all recovered: {'yes' if report['all_recovered'] else '**no**'}, orphan processes: "
        f"{len(report.get('orphans', [])) or 'none'}.",
    ]
    return "\n".join(rows) + "\n"


def render_durability(source: Path, options: Mapping[str, str]) -> str:
    """The durability promise with the figures measured in the run (not with ``promise=no``),
    then one row per fault judged by content: records before and after, missing, changed,
    rewritten since, and what was broken on purpose (``piano faults --break``)."""
    data = json.loads(source.read_text())
    report = data.get("report", data)
    promise = report.get("promise") or {}
    lost = promise.get("lost_at_most_ms", {})
    village, power = lost.get("sigkill_village", {}), lost.get("power_loss", {})
    promised = [
        f"- SIGKILL of Redis: at most {lost.get('kill_redis', '?')} ms of acknowledged writes "
        f"lost (`appendonly {promise.get('appendonly', '?')}`).",
        f"- SIGKILL of the village: at most {village.get('state', '?')} ms of state writes "
        f"(write-behind every {promise.get('flush_interval_ms', '?')} ms, longest wait "
        f"measured {promise.get('write_lag_max_ms', '?')} ms), {village.get('memories', '?')} "
        "ms of memories.",
        f"- Power loss: at most {power.get('state', '?')} ms of state writes and "
        f"{power.get('memories', '?')} ms of memories (`appendfsync "
        f"{promise.get('appendfsync', '?')}`, {promise.get('aof_delayed_fsync', '?')} delayed "
        "fsyncs).",
        "",
    ]
    lines = [
        *(promised if options.get("promise", "yes") != "no" else []),
        "| fault | recovered | records before | records after | missing | changed "
        "| rewritten since | broken on purpose |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in report["faults"]:
        c = f.get("content")
        if not c:
            continue
        lines.append(
            f"| {f['fault']} | {'yes' if f['recovered'] else '**no**'} | {c['records_before']} "
            f"| {c['records_after']} | {c['missing']} | {c['changed']} | {c['rewritten']} "
            f"| {f.get('sabotage') or '-'} |"
        )
    prov = data.get("provenance", data)
    lines += [
        "",
        f"`{prov.get('command', 'piano faults')}`, {prov.get('date', '?')}, commit "
        f"{prov.get('commit', '?')}.",
    ]
    return "\n".join(lines) + "\n"
