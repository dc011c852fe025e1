"""Every figure of a chef report, from the run's raw data files.

``python -m experiments.chef.recompute OUT`` prints them and exits 1 when
``OUT/metrics.json`` or ``OUT/report.md`` says anything else. Raw files: ``characters.csv``
(per run and character: its hidden attitude, requests said to the chef, food the chef's
delivered gives handed it, food from others, food held at the start and the end, its own
skills' change of food, what the world leaves unexplained, the chef's own impression and
its 0-10 score), ``chef.csv`` (the chef's food, ledger and check per run) and ``runs.csv``
(see ``ledger.py``). The runner builds its report with these same functions.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments import metrics as M
from experiments.files import read_csv
from experiments.report import fmt, is_pipeline_check, md_table, paper_column
from experiments.runner_base import context, recompute_main

__all__ = ["CHARACTER_FIELDS", "CHEF_FIELDS", "figures", "read_runs", "recompute_main", "tables"]

CHARACTER_FIELDS = ["condition", "repeat", "character", "attitude", "attitude_score",
                    "requests", "food_given", "from_others", "food_start", "food_end",
                    "own_change", "unexplained", "valuation", "valuation_source", "sentiment",
                    "brain", "summary"]
CHEF_FIELDS = ["condition", "repeat", "chef", "food_start", "food_end", "own_change",
               "ledger_total", "gives_failed", "unexplained", "measured_by"]
_INTS = ("requests", "food_given", "from_others", "food_start", "food_end", "own_change",
         "unexplained")
_CHEF_INTS = ("food_start", "food_end", "own_change", "ledger_total", "gives_failed",
              "unexplained")


def _num(x: str) -> float:
    return float(x) if x not in ("", None) else math.nan


def read_runs(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """(condition, repeat) -> its characters' rows and its chef row, typed, in run order."""
    runs: dict[tuple[str, int], dict[str, Any]] = defaultdict(
        lambda: {"characters": [], "chef": {}})
    for r in read_csv(out / "characters.csv"):
        row: dict[str, Any] = {k: r[k] for k in ("character", "attitude", "valuation_source")}
        row.update({k: int(r[k]) for k in _INTS})
        row.update({k: _num(r[k]) for k in ("attitude_score", "valuation", "sentiment")})
        runs[(r["condition"], int(r["repeat"]))]["characters"].append(row)
    for r in read_csv(out / "chef.csv"):
        runs[(r["condition"], int(r["repeat"]))]["chef"] = {
            **{k: int(r[k]) for k in _CHEF_INTS}, "measured_by": r["measured_by"]}
    return dict(runs)


def run_figures(run: Mapping[str, Any]) -> dict[str, Any]:
    chars, chef = run["characters"], run["chef"]
    food = [float(c["food_given"]) for c in chars]
    value = [c["valuation"] for c in chars]
    att = [c["attitude_score"] for c in chars]
    fit = M.pearson(value, food)
    given = sum(c["food_given"] for c in chars)
    off = abs(chef.get("unexplained", 0)) + sum(abs(c["unexplained"]) for c in chars)
    return {
        "r_food_valuation": fit.r, "slope": fit.slope, "n": fit.n,
        "spearman_food_valuation": M.spearman(value, food),
        "spearman_food_attitude": M.spearman(att, food),
        "spearman_valuation_attitude": M.spearman(att, value),
        "food_given": given, "ledger_total": chef.get("ledger_total", 0),
        "gives_failed": chef.get("gives_failed", 0), "measured_by": chef.get("measured_by", ""),
        "unexplained_by_world": off, "world_matches_ledger": off == 0,
        "characters": [{k: c[k] for k in ("character", "attitude", "requests", "food_given",
                                          "unexplained", "valuation", "valuation_source")}
                       for c in chars],
    }


def figures(out: Path) -> dict[str, Any]:
    """Per condition: each run's figures; r (food given vs the chef's valuation) mean and CI
    over repeats (a repeat is the unit); mean food given per hidden attitude."""
    exp, _ = context(out)
    conf = float(exp.protocol.get("confidence", 0.95))
    figs: dict[str, Any] = {}
    for (cond, rep), run in read_runs(out).items():
        figs.setdefault(cond, {"runs": []})["runs"].append({"repeat": rep, **run_figures(run)})
    for f in figs.values():
        ci = M.mean_ci([r["r_food_valuation"] for r in f["runs"]], conf, (-1, 1))
        f["r_mean"], f["r_ci"], f["r_defined"] = ci.mean, [ci.lo, ci.hi], ci.n
        f["spearman_mean"] = M.mean_ci([r["spearman_food_valuation"] for r in f["runs"]]).mean
        f["repeats"] = len(f["runs"])
        per: dict[str, list[float]] = defaultdict(list)
        for r in f["runs"]:
            for c in r["characters"]:
                per[c["attitude"]].append(float(c["food_given"]))
        f["food_by_attitude"] = {a: sum(v) / len(v) for a, v in per.items()}
    return figs


def _ci(lo_hi: list[float]) -> str:
    return "[" + ", ".join(fmt(x) for x in lo_hi) + "]"


def tables(out: Path, figs: Mapping[str, Any]) -> str:
    exp, brain = context(out)
    check = is_pipeline_check(brain)
    summary = md_table(
        ["condition", "repeats", "runs with r defined", "r (food vs valuation), mean",
         "CI (repeats)", "Spearman, mean", "food given per run, mean"]
        + ([] if check else ["paper"]),
        [[c, f["repeats"], f["r_defined"], f["r_mean"], _ci(f["r_ci"]), f["spearman_mean"],
          sum(r["food_given"] for r in f["runs"]) / len(f["runs"]),
          *paper_column(exp, brain, c)] for c, f in figs.items()],
    )
    runs = md_table(
        ["run", "r", "Spearman", "Spearman food vs attitude", "Spearman valuation vs attitude",
         "food given", "gives failed", "unexplained by the world", "measured by"],
        [[f"{c}-r{r['repeat']}", r["r_food_valuation"], r["spearman_food_valuation"],
          r["spearman_food_attitude"], r["spearman_valuation_attitude"], r["food_given"],
          r["gives_failed"], r["unexplained_by_world"], r["measured_by"]]
         for c, f in figs.items() for r in f["runs"]],
    )
    chars = md_table(
        ["run", "character", "attitude (hidden)", "requests to the chef", "food given",
         "unexplained by the world", "chef's valuation", "from"],
        [[f"{c}-r{r['repeat']}", x["character"], x["attitude"], x["requests"], x["food_given"],
          x["unexplained"], x["valuation"], x["valuation_source"]]
         for c, f in figs.items() for r in f["runs"] for x in r["characters"]],
    )
    return f"{summary}\n\n{runs}\n\n{chars}"


if __name__ == "__main__":
    sys.exit(recompute_main("chef", figures, tables))
