"""Every figure of a tax report, from the run's raw data files.

``python -m experiments.tax.recompute OUT`` prints them and exits 1 when ``OUT/metrics.json``
or ``OUT/report.md`` says anything else. Raw files: ``deposits.csv`` (per agent and season:
inventory at the opening, items deposited as measured, role), ``timeline.jsonl`` (what
happened when, with the tax rate distributed at the end), ``season_totals.csv`` (the
ledger's check per season), ``runs.csv`` and each run's ``runs/<run>/events.jsonl`` (the
controllers' commitment: decisions and skills cancelled, deposits started and finished).

Only constituents count in the payments (influencers neither vote nor are counted). The unit
of the confidence interval is a repeat (one society): a repeat's share is the mean over its
constituents of each one's mean share over the phase's seasons; the CI is across repeats,
never over agents pooled from different repeats.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments import metrics as M
from experiments.files import read_csv, read_events
from experiments.report import is_pipeline_check, md_table, paper_column
from experiments.runner_base import context, read_runs, recompute_main

PHASES = ("before", "after")


def _f(x: str) -> float:
    return float(x) if x not in ("", None) else math.nan


def figures(out: Path) -> dict[str, Any]:
    """``shares``: per condition and phase, the share of inventory deposited (mean over
    repeats, CI across repeats, the constituents counted) and the tax rate in force after the
    vote; ``votes``: per run, the amendments, ballots and the result."""
    conf = float(context(out)[0].protocol.get("confidence", 0.95))
    shares: dict[tuple[str, int, str, str], list[float]] = defaultdict(list)
    for r in read_csv(out / "deposits.csv"):
        s = _f(r["share"])
        if r["role"] == "constituent" and math.isfinite(s):
            shares[(r["condition"], int(r["repeat"]), r["phase"], r["agent"])].append(s)
    per_repeat: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(
        lambda: defaultdict(list))
    for (cond, rep, phase, _), v in shares.items():
        per_repeat[(cond, phase)][rep].append(sum(v) / len(v))
    rate_after: dict[str, dict[int, float]] = defaultdict(dict)
    tl = out / "timeline.jsonl"
    for line in tl.read_text(encoding="utf-8").splitlines() if tl.exists() else []:
        e = json.loads(line)
        if e.get("event") == "distribute":
            rate_after[e["condition"]][int(e["repeat"])] = float(e["rate"])
    conds = list(dict.fromkeys([c for c, _ in per_repeat] + list(rate_after)))  # run order
    shares_by: dict[str, Any] = {}
    for cond in conds:
        f: dict[str, Any] = {}
        for phase in PHASES:
            reps = per_repeat.get((cond, phase), {})
            means = [sum(v) / len(v) for _, v in sorted(reps.items())]
            ci = M.mean_ci(means, conf, (0, 1))
            f[phase] = {"mean": ci.mean, "ci": [ci.lo, ci.hi], "repeats": ci.n,
                        "constituents": sum(len(v) for v in reps.values()),
                        "per_repeat": means}
        rates = [v for _, v in sorted(rate_after.get(cond, {}).items())]
        rci = M.mean_ci(rates, conf, (0, 1))
        f["rate_after"] = {"mean": rci.mean, "ci": [rci.lo, rci.hi], "per_repeat": rates}
        shares_by[cond] = f
    return {"shares": shares_by, "votes": votes(out), "commitment": commitment(out),
            **body(out)}


WINDOW_FIELDS = ["condition", "repeat", "name", "wall_s", "walk_s", "farthest_agent", "fits",
                 "note"]


def body(out: Path) -> dict[str, Any]:
    """``seasons``: every constituent-season accounted for per condition and phase
    (:mod:`experiments.tax.accounts`: paid, decided not to pay, tried and failed and why);
    ``body_ledger``: every skill started, succeeded and failed by kind, per condition and
    phase (:mod:`experiments.ledger`, from ``skills.csv``); ``windows``: each protocol
    window against the walk it needs (``windows.csv``)."""
    from experiments import ledger
    from experiments.tax import accounts

    border = accounts.distributed_at(out)

    def phase_for(cond: str, rep: int) -> ledger.Phase:
        at = border.get((cond, rep), math.inf)
        return lambda t: "before" if t < at else "after"

    wf = out / "windows.csv"
    wins = [{"condition": w["condition"], "repeat": int(w["repeat"]), "name": w["name"],
             "wall_s": _f(w["wall_s"]), "walk_s": _f(w["walk_s"]), "fits": w["fits"] == "True",
             "note": w["note"]} for w in (read_csv(wf) if wf.exists() else [])]
    return {"seasons": accounts.figures(accounts.seasons(out)),
            "body_ledger": ledger.figures(ledger.read_skills(out), phase_for),
            "windows": wins}


def commitment(out: Path) -> list[dict[str, Any]]:
    """Per run: did the controllers keep their word (:func:`experiments.metrics.commitment`
    over the run's events; agent-hours = the run's agents x the protocol's wall duration)."""
    from experiments.tax.protocol import TaxProtocol

    duration_s = TaxProtocol.model_validate(context(out)[0].protocol).duration_s
    rows = []
    for r in read_runs(out):
        run = f"{r['condition']}-r{r['repeat']}"
        events = read_events(out / "runs" / run)
        rows.append({"run": run, **M.commitment(events, r["agents"],
                                                duration_s * r["time_scale"])})
    return rows


def votes(out: Path) -> list[dict[str, Any]]:
    """Per run (``runs/<run>/democracy.json``): the amendments and their proposed rates, the
    ones passed, the rate in force after the distribution, and the ballots cast
    (``votes.csv``) per amendment."""
    cast: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    vf = out / "votes.csv"
    for v in read_csv(vf) if vf.exists() else []:
        cast[(v["condition"], v["repeat"], v["amendment"])][v["vote"]] += 1
    rows = []
    for r in read_runs(out):
        demo_file = out / "runs" / f"{r['condition']}-r{r['repeat']}" / "democracy.json"
        if not demo_file.exists():
            continue
        demo = json.loads(demo_file.read_text(encoding="utf-8"))
        amend = [{"number": a["number"], "tax_rate": a.get("tax_rate"),
                  **{k: cast[(r["condition"], str(r["repeat"]), str(a["number"]))].get(k, 0)
                     for k in ("yes", "no", "abstain")}}
                 for a in demo.get("amendments", [])]
        rows.append({"run": f"{r['condition']}-r{r['repeat']}", "amendments": amend,
                     "passed": list(demo.get("tally", {}).get("passed", [])),
                     "rate_after": demo.get("in_force_after", {}).get("tax_rate")})
    return rows


def _ci(v: list[float]) -> str:
    return "[" + ", ".join("n/a" if not math.isfinite(x) else f"{x:.3f}" for x in v) + "]"


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{round(float(x) * 100)}%"


def tables(out: Path, figs: Mapping[str, Any]) -> str:
    exp, brain = context(out)
    shares = md_table(
        ["condition", "repeats", "share before", "CI (repeats)", "share after", "CI (repeats)",
         "rate after"] + ([] if is_pipeline_check(brain) else ["paper"]),
        [[c, s["before"]["repeats"], s["before"]["mean"], _ci(s["before"]["ci"]),
          s["after"]["mean"], _ci(s["after"]["ci"]), s["rate_after"]["mean"],
          *paper_column(exp, brain, c)] for c, s in figs["shares"].items()],
    )
    ballots = md_table(
        ["run", "amendments (proposed rate: yes/no/abstain)", "passed", "rate after"],
        [[v["run"], "; ".join(f"{a['number']}: {_pct(a['tax_rate'])} ({a['yes']}/{a['no']}/"
                              f"{a['abstain']})" for a in v["amendments"]) or "none",
          ", ".join(str(i) for i in v["passed"]) or "none", v["rate_after"]]
         for v in figs.get("votes", [])],
    )
    ended = ("preempted", "resumed", "idle_ended")
    kept = md_table(
        ["run", "agent-hours", "decisions cancelled", "per agent-hour", "skills cancelled",
         "of them by the controller", *ended, "deposits started", "succeeded", "cancelled",
         "failed"],
        [[k["run"], k["agent_hours"], k["decisions_cancelled"],
          k["decisions_cancelled_per_agent_hour"], k["skills_cancelled"],
          k["controller_cancelled"], *(k["skills_ended_as"].get(e, 0) for e in ended),
          *(k["deposits"][d] for d in ("started", "succeeded", "cancelled", "failed"))]
         for k in figs.get("commitment", [])],
    )
    short = [w for w in figs.get("windows", []) if not w["fits"]]
    warn = "".join(
        f"**Window too short for the world** ({w['condition']}-r{w['repeat']}, {w['name']}): "
        f"{w['note']}; walking is not scaled by the time scale, so agents far from the "
        "target could not reach it in time whatever they decided.\n\n" for w in short)
    return (f"{warn}{shares}\n\n{season_tables(figs)}\n\n## Votes\n\n{ballots}\n\n"
            f"## Did the controllers keep their word?\n\n{kept}\n\n{body_tables(figs)}")


def _p(x: Any) -> str:
    return "n/a" if x is None or not math.isfinite(float(x)) else f"{float(x) * 100:.0f}%"


def season_tables(figs: Mapping[str, Any]) -> str:
    """Decisions vs bodies: every constituent-season accounted for."""
    from experiments.ledger import kinds_text
    from experiments.tax import accounts

    rows, counts = [], []
    for cond, phases in figs.get("seasons", {}).items():
        for phase, f in phases.items():
            c = f["classes"]
            rows.append([cond, phase, f["seasons"], _p(f["decided_to_pay"]), _p(f["paid"]),
                         _p(f["failed"]), _p(f["paid_late"]), _p(f["unpaid_by_decision"]),
                         _p(f["unpaid_by_body"]), _p(f["unpaid_paid_late"]),
                         f"{f['deposits_succeeded']} of {f['deposits_started']} "
                         f"({_p(f['deposits_succeeded_share'])})",
                         kinds_text(f["deposit_failures_by_kind"])])
            counts.append([cond, phase, *(c[k] for k in accounts.CLASSES),
                           kinds_text(f["tried_failed_by_reason"])])
    share = md_table(
        ["condition", "phase", "constituent-seasons", "decided to pay", "paid", "failed",
         "paid late", "unpaid: decided", "unpaid: body failed", "unpaid: paid late",
         "deposits in the windows succeeded",
         "deposit failures by kind"], rows)
    classes = md_table(
        ["condition", "phase", "paid the rate", "paid less", "paid after the season",
         "decided not to pay",
         "tried and failed", "started, then stopped", "held nothing", "0% asked",
         "tried and failed: why"], counts)
    return ("## Decisions or bodies? Every constituent-season\n\n" + share + "\n\n" + classes)


def body_tables(figs: Mapping[str, Any]) -> str:
    from experiments.ledger import table

    wins = md_table(
        ["run", "window", "open (wall s)", "walk + act needed (s)", "fits", "how"],
        [[f"{w['condition']}-r{w['repeat']}", w["name"], w["wall_s"], w["walk_s"],
          "yes" if w["fits"] else "**no**", w["note"]] for w in figs.get("windows", [])])
    return (f"## Body ledger\n\n{table(figs.get('body_ledger', []))}\n\n"
            f"## Do the windows fit the world?\n\n{wins}")


if __name__ == "__main__":
    sys.exit(recompute_main("tax", figures, tables))
