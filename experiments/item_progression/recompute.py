"""Every figure of an item-progression report, from the run's raw data files.

``python -m experiments.item_progression.recompute OUT`` prints them and exits 1 when
``OUT/metrics.json`` or ``OUT/report.md`` says anything else. Raw files:
``acquisitions.csv`` (one row per first acquisition of a kind of item by an agent, at the time
it happened), ``items.csv`` (one row per agent and inventory read: the kinds acquired so far),
``skills.csv`` (every skill started and how it ended: the body ledger, :mod:`experiments.ledger`)
and ``runs.csv``. The runner
builds its report with these same functions.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments import ledger
from experiments import metrics as M
from experiments.files import read_csv
from experiments.report import is_pipeline_check, md_table, paper_column
from experiments.runner_base import context, recompute_main

ITEM_FIELDS = ["condition", "repeat", "agent", "t", "unique_now", "unique_cumulative", "items"]
ACQUISITION_FIELDS = ["condition", "repeat", "agent", "t", "item", "source", "unique_cumulative"]


def read_items(out: Path) -> list[dict[str, Any]]:
    return [{**r, "repeat": int(r["repeat"]), "t": float(r["t"]),
             "unique_now": int(r["unique_now"]), "unique_cumulative": int(r["unique_cumulative"]),
             "items": json.loads(r["items"] or "[]")} for r in read_csv(out / "items.csv")]


def read_acquisitions(out: Path) -> list[dict[str, Any]]:
    path = out / "acquisitions.csv"
    if not path.exists():  # reports from before acquisitions were recorded
        return []
    return [{**r, "repeat": int(r["repeat"]), "t": float(r["t"]),
             "unique_cumulative": int(r["unique_cumulative"])} for r in read_csv(path)]


def _steps(agents: int, times: list[float]) -> list[dict[str, float]]:
    """Mean unique items per agent after every acquisition (``times`` of all of them)."""
    steps = [{"t": 0.0, "mean": 0.0}]
    for i, t in enumerate(sorted(times), 1):
        steps.append({"t": t, "mean": i / agents})
    return steps


def figures(out: Path) -> dict[str, Any]:
    """Per condition: final unique items per agent (mean, CI over agents, range; from the
    acquisitions), collective unique items per run (mean, CI over repeats), the mean curve per
    inventory read (with CI) and the mean step curve at every acquisition."""
    confidence = float(context(out)[0].protocol.get("confidence", 0.95))
    rows = read_items(out)
    acquired: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for a in read_acquisitions(out):
        acquired[(a["condition"], a["repeat"])].append(a)
    times: dict[str, list[float]] = defaultdict(list)
    runs: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        runs[(r["condition"], r["repeat"])].append(r)
    finals: dict[str, list[float]] = defaultdict(list)
    collective: dict[str, list[float]] = defaultdict(list)
    curves: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    sample_t: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (cond, rep), rs in runs.items():  # in run order
        sampled = sorted({r["t"] for r in rs})
        last: dict[str, int] = {}
        union: set[str] = set()
        for a in acquired[(cond, rep)]:
            last[a["agent"]] = max(last.get(a["agent"], 0), a["unique_cumulative"])
            union.add(a["item"])
            times[cond].append(a["t"])
        for r in sorted(rs, key=lambda x: x["t"]):
            i = sampled.index(r["t"])
            curves[cond][i].append(r["unique_cumulative"])
            sample_t[cond][i].append(r["t"])
            last[r["agent"]] = max(last.get(r["agent"], 0), r["unique_cumulative"])
            union.update(r["items"])
        finals[cond] += [float(v) for v in last.values()]
        collective[cond].append(float(len(union)))
    out_figs: dict[str, Any] = {}
    for cond, vals in finals.items():
        ci = M.mean_ci(vals, confidence, (0, math.inf))
        coll = M.mean_ci(collective[cond], confidence, (0, math.inf))
        curve = []
        for i in sorted(curves[cond]):
            c = M.mean_ci(curves[cond][i], confidence, (0, math.inf))
            t = sum(sample_t[cond][i]) / len(sample_t[cond][i])
            curve.append({"t": t, "mean": c.mean, "lo": c.lo, "hi": c.hi})
        out_figs[cond] = {
            "agents": ci.n, "repeats": len(collective[cond]),
            "mean_unique_items": ci.mean, "ci": [ci.lo, ci.hi],
            "min": min(vals) if vals else math.nan, "max": max(vals) if vals else math.nan,
            "collective_unique_mean": coll.mean, "collective_ci": [coll.lo, coll.hi],
            "curve": curve, "acquisitions": len(times[cond]),
            "steps": _steps(max(1, ci.n), times[cond]),
        }
    out_figs[ledger.BODY] = ledger.figures(ledger.read_skills(out))
    return out_figs


def _ci(lo_hi: list[float]) -> str:
    return "[" + ", ".join(f"{x:.1f}" if math.isfinite(x) else "n/a" for x in lo_hi) + "]"


def tables(out: Path, figs: Mapping[str, Any]) -> str:
    exp, brain = context(out)
    return main_table(exp, brain, figs) + ledger.section(figs)


def main_table(exp: Any, brain: str, figs: Mapping[str, Any]) -> str:
    return md_table(
        ["condition", "agents", "repeats", "mean unique items", "CI (agents)", "range",
         "collective", "CI (repeats)", "acquisitions"] + ([] if is_pipeline_check(brain) else ["paper"]),
        [[c, s["agents"], s["repeats"], s["mean_unique_items"], _ci(s["ci"]),
          f"{s['min']:.0f}-{s['max']:.0f}" if math.isfinite(s["min"]) else "n/a",
          s["collective_unique_mean"], _ci(s["collective_ci"]), s["acquisitions"], *paper_column(exp, brain, c)]
         for c, s in ledger.without(figs).items()],
    )


if __name__ == "__main__":
    sys.exit(recompute_main("item_progression", figures, tables))
