"""Village runs at several Minecraft versions side by side, from their run folders.

``python -m bots.version_runs OUT.json RUN_DIR [RUN_DIR ...] --date D --command C
[--load RUN_DIR=BEFORE,AFTER] [--commit C]`` reads each folder's ``config.resolved.yaml``
(the version), ``events.jsonl`` (decisions, skill outcomes, discrepancies, body events,
module errors) and ``logs/server.log`` (lines naming an error), writes ``OUT.json`` (the
figures, with the commit the runs ran, default the checkout's, and the load given) and
``OUT.md`` beside it, whose ``## Village`` and ``## Agents`` sections the docs render
(``<!-- figures: report ...md section="Village" -->``). Rates are per agent-minute of the
run's span (first to last event).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
KICKS = ("kicked",)
DISCONNECTS = ("disconnected",)


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else "")


def summarise(run: Path) -> dict[str, Any]:
    """The figures of one run folder."""
    cfg = yaml.safe_load((run / "config.resolved.yaml").read_text())
    events = [json.loads(line) for line in (run / "events.jsonl").open() if line.strip()]
    stamps = [float(e["t"]) for e in events if "t" in e]
    span_s = max(stamps) - min(stamps) if stamps else 0.0
    # a village of templates (the experiments') lists no agents: those its events name
    named = cfg["agents"] or [{"name": e["agent"]} for e in events if e.get("agent")]
    agents = sorted({str(a["name"]) for a in named})
    minutes = max(1e-9, len(agents) * span_s / 60)
    per: dict[str, Counter[str]] = {a: Counter() for a in agents}
    skills: dict[str, Counter[str]] = {}
    reasons: Counter[str] = Counter()
    body: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for e in events:
        kind, agent = e.get("type"), str(e.get("agent", ""))
        c = per.get(agent, Counter())
        if kind == "decision":
            c["decisions"] += 1
        elif kind == "skill_outcome" and not e.get("cancelled"):
            skill = str((e.get("call") or {}).get("skill", "?"))
            ok = "succeeded" if e.get("success") else "failed"
            c[ok] += 1
            skills.setdefault(skill, Counter())[ok] += 1
            if not e.get("success"):
                reasons[f"{skill}: {str(e.get('reason', ''))[:60]}"] += 1
        elif kind == "skill_outcome":
            c["cancelled"] += 1
        elif kind == "discrepancy":
            c["discrepancies"] += 1
        elif kind == "body_event":
            body[str(e.get("kind"))] += 1
        elif kind in ("module_error", "module_disabled", "service_restarted", "module_restarted"):
            errors[str(kind)] += 1
    log = run / "logs" / "server.log"
    server_errors = sum("error" in line.lower() for line in log.open()) if log.exists() else 0

    def rate(n: int) -> float:
        return round(n / minutes, 2)

    total = sum(per.values(), Counter())
    return {
        "run": run.name,
        "version": str(cfg["world"]["version"]),
        "config_seed": cfg["run"]["seed"],
        "started_unix": round(min(stamps), 1) if stamps else None,
        "span_s": round(span_s, 1),
        "agents": len(agents),
        "errors": dict(errors),
        "server_log_error_lines": server_errors,
        "kicks": sum(n for k, n in body.items() if k in KICKS),
        "disconnects": sum(n for k, n in body.items() if k in DISCONNECTS),
        "body_events": dict(body),
        "decisions_per_agent_minute": rate(total["decisions"]),
        "skills_succeeded_per_agent_minute": rate(total["succeeded"]),
        "skills_failed_per_agent_minute": rate(total["failed"]),
        "discrepancies": total["discrepancies"],
        "skills": {k: dict(v) for k, v in sorted(skills.items())},
        "failure_reasons": dict(reasons.most_common(8)),
        "per_agent": {
            a: {
                "decisions_per_minute": round(per[a]["decisions"] * 60 / max(span_s, 1e-9), 2),
                "succeeded": per[a]["succeeded"],
                "failed": per[a]["failed"],
                "cancelled": per[a]["cancelled"],
                "discrepancies": per[a]["discrepancies"],
            }
            for a in agents
        },
    }


def markdown(result: dict[str, Any]) -> str:
    """``## Village`` (one row per run) and ``## Agents`` (one row per agent and run)."""
    runs: list[dict[str, Any]] = result["runs"]
    out = [
        "# Village runs by Minecraft version",
        "",
        "## Village",
        "",
        "| version | run | agents | span s | load before -> after | errors | server log error "
        "lines | kicks / disconnects | decisions per agent-minute | skills succeeded / failed "
        "per agent-minute | discrepancies | skills succeeded / failed by kind |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        load = r.get("load") or ["?", "?"]
        by_kind = ", ".join(
            f"{k} {v.get('succeeded', 0)}/{v.get('failed', 0)}" for k, v in r["skills"].items()
        )
        out.append(
            f"| {r['version']} | {r['run']} | {r['agents']} | {r['span_s']} "
            f"| {load[0]} -> {load[1]} | {sum(r['errors'].values())} "
            f"| {r['server_log_error_lines']} | {r['kicks']} / {r['disconnects']} "
            f"| {r['decisions_per_agent_minute']} | {r['skills_succeeded_per_agent_minute']} / "
            f"{r['skills_failed_per_agent_minute']} | {r['discrepancies']} | {by_kind} |"
        )
    out += ["", f"(measured {result['date']}, commit {result['commit']}; {result['command']})"]
    out += [
        "",
        "## Agents",
        "",
        "| version | agent | decisions per minute | skills succeeded | failed | cancelled "
        "| discrepancies |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        for a, p in r["per_agent"].items():
            out.append(
                f"| {r['version']} | {a} | {p['decisions_per_minute']} | {p['succeeded']} "
                f"| {p['failed']} | {p['cancelled']} | {p['discrepancies']} |"
            )
    out += ["", "## Failures", ""]
    for r in runs:
        reasons = "; ".join(f"{k} ({n})" for k, n in r["failure_reasons"].items()) or "-"
        out.append(f"- {r['version']} {r['run']}: {reasons}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bots.version_runs")
    p.add_argument("out", type=Path, help="the JSON to write (and .md beside it)")
    p.add_argument("runs", nargs="+", type=Path, help="run folders")
    p.add_argument("--load", action="append", default=[], help="RUN_DIR=BEFORE,AFTER")
    p.add_argument("--date", required=True, help="when they ran (UTC), as written in the docs")
    p.add_argument("--command", required=True, help="the command that made each run")
    p.add_argument("--commit", default=None, help="the commit the runs ran (default: HEAD)")
    args = p.parse_args(argv)
    loads = {k: v.split(",") for k, v in (x.split("=", 1) for x in args.load)}
    runs = []
    for run in args.runs:
        r = summarise(run)
        r["load"] = loads.get(str(run)) or loads.get(run.name)
        runs.append(r)
    result = {
        "date": args.date,
        "commit": args.commit or _commit(),
        "cpus": os.cpu_count(),
        "command": args.command,
        "runs": runs,
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result))
    sys.stdout.write(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
