"""Every figure of a social-perception report, from the run's raw data files.

``python -m experiments.social_perception.recompute OUT`` prints them and exits 1 when
``OUT/metrics.json`` or ``OUT/report.md`` says anything else. Raw files: ``impressions.csv``
(observer, person, the observer's own summary, its 0-10 score), ``agents.csv`` (true
likeability and extroversion from the personality generator), ``sentiments.csv`` (each
agent's social-module sentiment about each other agent) and ``runs.csv``. The runner builds
its report with these same functions.
"""

from __future__ import annotations

import math
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments import metrics as M
from experiments.files import read_csv
from experiments.report import is_pipeline_check, md_table, paper_column
from experiments.runner_base import context, recompute_main

IMPRESSION_FIELDS = ["condition", "repeat", "observer", "person", "source", "score", "brain",
                     "summary"]
AGENT_FIELDS = ["condition", "repeat", "agent", "true_likeability", "extroversion", "traits"]
SENTIMENT_FIELDS = ["condition", "repeat", "observer", "person", "sentiment"]


def _num(x: str) -> float:
    return float(x) if x not in ("", None) else math.nan


def perceived(impressions: list[dict[str, Any]]) -> dict[str, tuple[float, int]]:
    """person -> (mean score, number of observers)."""
    by: dict[str, list[float]] = defaultdict(list)
    for i in impressions:
        by[i["person"]].append(float(i["score"]))
    return {p: (sum(v) / len(v), len(v)) for p, v in by.items()}


def r_by_min_observers(
    truth: dict[str, float], perc: dict[str, tuple[float, int]], max_k: int
) -> list[dict[str, Any]]:
    rows = []
    for k in range(1, max_k + 1):
        names = [n for n, (_, obs) in perc.items() if obs >= k and n in truth]
        fit = M.pearson([truth[n] for n in names], [perc[n][0] for n in names])
        rows.append({"min_observers": k, "agents": fit.n, "r": fit.r, "slope": fit.slope,
                     "intercept": fit.intercept})
    return rows


def asymmetries(graph: dict[str, dict[str, float]]) -> list[float]:
    """s(a->b) - s(b->a) for every unordered pair with both directions (a < b)."""
    out = []
    for a, outs in graph.items():
        for b, s in outs.items():
            if a < b and a in graph.get(b, {}):
                out.append(s - graph[b][a])
    return out


def read_run(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """(condition, repeat) -> impressions, agents and the sentiment graph of that run."""
    runs: dict[tuple[str, int], dict[str, Any]] = defaultdict(
        lambda: {"impressions": [], "agents": [], "graph": defaultdict(dict)})
    for r in read_csv(out / "agents.csv"):
        runs[(r["condition"], int(r["repeat"]))]["agents"].append(
            {"agent": r["agent"], "true_likeability": _num(r["true_likeability"]),
             "extroversion": _num(r["extroversion"])})
    for r in read_csv(out / "impressions.csv"):
        runs[(r["condition"], int(r["repeat"]))]["impressions"].append(
            {"observer": r["observer"], "person": r["person"], "source": r["source"],
             "score": float(r["score"])})
    for r in read_csv(out / "sentiments.csv"):
        runs[(r["condition"], int(r["repeat"]))]["graph"][r["observer"]][r["person"]] = float(
            r["sentiment"])
    return dict(runs)


def run_figures(run: Mapping[str, Any], min_obs: int, max_obs: int) -> dict[str, Any]:
    truth = {a["agent"]: a["true_likeability"] for a in run["agents"]
             if math.isfinite(a["true_likeability"])}
    extro = {a["agent"]: a["extroversion"] for a in run["agents"]
             if math.isfinite(a["extroversion"])}
    perc = perceived(run["impressions"])
    rk = r_by_min_observers(truth, perc, max_obs)
    indeg = {n: perc.get(n, (0.0, 0))[1] for n in extro}
    deg = M.pearson([extro[n] for n in indeg], [float(v) for v in indeg.values()])
    asym = asymmetries(run["graph"])
    return {
        "impressions": len(run["impressions"]),
        "r_at_min_observers": rk[min(min_obs, max_obs) - 1], "r_by_min_observers": rk,
        "in_degree_vs_extroversion": {"r": deg.r, "slope": deg.slope, "n": deg.n},
        "asymmetry": {"pairs": len(asym), "mean_abs": M.mean_ci([abs(x) for x in asym]).mean,
                      "share_within_1": (sum(abs(x) <= 1 for x in asym) / len(asym))
                      if asym else math.nan},
        "sources": dict(Counter(i["source"] for i in run["impressions"])),
    }


def figures(out: Path) -> dict[str, Any]:
    """Per condition: each run's figures and r at the minimum observers, mean and CI over
    repeats (a repeat is the unit: its r uses one society's agents)."""
    exp, _ = context(out)
    proto = exp.protocol
    min_obs, max_obs = int(proto.get("min_observers", 5)), int(proto.get("max_observers", 11))
    conf = float(proto.get("confidence", 0.95))
    figs: dict[str, Any] = {}
    for (cond, rep), run in read_run(out).items():  # in run order
        f = figs.setdefault(cond, {"runs": []})
        f["runs"].append({"repeat": rep, **run_figures(run, min_obs, max_obs)})
    for f in figs.values():
        ci = M.mean_ci([r["r_at_min_observers"]["r"] for r in f["runs"]], conf, (-1, 1))
        f["r_mean"], f["r_ci"], f["repeats"] = ci.mean, [ci.lo, ci.hi], len(f["runs"])
    return figs


def tables(out: Path, figs: Mapping[str, Any]) -> str:
    exp, brain = context(out)
    k = int(exp.protocol.get("min_observers", 5))
    return md_table(
        ["condition", "repeats", f"r (>= {k} observers), mean", "CI (repeats)",
         "impressions (r0)", "agents in r (r0)", "in-degree vs extroversion r (r0)",
         "asymmetric pairs (r0)"] + ([] if is_pipeline_check(brain) else ["paper"]),
        [[c, s["repeats"], s["r_mean"],
          "[" + ", ".join("n/a" if not math.isfinite(x) else f"{x:.2f}" for x in s["r_ci"]) + "]",
          s["runs"][0]["impressions"], s["runs"][0]["r_at_min_observers"]["agents"],
          s["runs"][0]["in_degree_vs_extroversion"]["r"], s["runs"][0]["asymmetry"]["pairs"],
          *paper_column(exp, brain, c)] for c, s in figs.items()],
    )


if __name__ == "__main__":
    sys.exit(recompute_main("social_perception", figures, tables))
