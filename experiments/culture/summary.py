"""The culture report's tables (one block per run), built from the recomputed figures.

A heuristic-brain run is a pipeline check: no paper column (``experiments.report``); an LLM
run has the paper's statements beside the figures over runs, with their CI."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from experiments import metrics as M
from experiments.culture.population import RURAL, Population
from experiments.report import fmt, md_table

TOWNS = "towns"


def scale_note(p: Population) -> str:
    return (f"{p.agents} agents, {p.towns} towns of {p.per_town}, "
            f"{max(0, p.agents - p.towns * p.per_town)} rural, {p.priests} priests, area "
            f"{p.area[0]:.0f} x {p.area[1]:.0f} blocks, town radius {p.town_radius:.1f}")


def run_tables(run: str, f: Mapping[str, Any]) -> str:
    """One run's tables. The paper's statements go beside the figures over runs (with their
    CI, :func:`across_runs`), not beside one run's."""
    groups = [g for g in f["memes_final"] if g not in (TOWNS, RURAL)] + [TOWNS, RURAL]
    m = f["memes_final"]
    memes = md_table(
        ["group", "agents", "memes per agent", "distinct memes", "distinct per agent"],
        [[g, m[g]["members"], m[g]["per_capita"], m[g]["distinct"],
          m[g]["distinct_per_capita"]] for g in groups])
    c, i = f["converts_final"], f["influence_final"]
    rows: list[list[Any]] = [
        ["indirect converts (said pasta/spaghetti only)", c["indirect"]],
        ["direct converts (said Pastafarian/Spaghetti Monster)", c["direct"]],
        ["area of influence, any level (square blocks)", i["area_any"]],
        ["area of influence, direct converts (square blocks)", i["area_direct"]],
        ["speech lines delivered / attempted", f"{f['speech_lines']} / {f['speech_attempted']}"],
        ["priests who said it", len(f["priests_heard_saying_it"])],
    ]
    rel = md_table(["measure", "value"], rows)
    return (f"### Run {run}\n\nMemes at the end (distinct topics of each agent's own goals):"
            f"\n\n{memes}\n\nReligion at the end (non-priests; {f['priests']} priests apart; "
            f"hearing radius {f['hearing_radius']:g} blocks):\n\n{rel}\n\n")


def _ci(lo: float, hi: float) -> str:
    return f"[{fmt(lo)}, {fmt(hi)}]"


def across_runs(figs: Mapping[str, Mapping[str, Any]], pipeline: bool,
                paper: Mapping[str, Any], confidence: float = 0.95) -> str:
    """The headline figures over the runs (a run, one society, is the unit): mean with a
    Student-t CI across runs (n/a below 2 runs); the paper's statement beside them unless
    this is a pipeline check."""
    def per_run(get: Any) -> list[float]:
        vals = []
        for f in figs.values():
            v = get(f)
            vals.append(float(v) if v is not None else float("nan"))
        return vals

    def capita(g: str) -> Any:
        return lambda f: f["memes_final"].get(g, {}).get("per_capita")

    rows: list[tuple[str, list[float], str]] = [
        ("memes per agent, towns", per_run(capita(TOWNS)), "memes"),
        ("memes per agent, rural", per_run(capita(RURAL)), "memes"),
        ("memes per agent, towns - rural",
         [a - b for a, b in zip(per_run(capita(TOWNS)), per_run(capita(RURAL)), strict=True)],
         "memes"),
        ("converts at the end, direct", per_run(lambda f: f["converts_final"]["direct"]),
         "religion"),
        ("converts at the end, any level", per_run(lambda f: f["converts_final"]["any"]),
         "religion"),
        ("area of influence at the end, any level (square blocks)",
         per_run(lambda f: f["influence_final"]["area_any"]), "religion"),
    ]
    body = []
    for label, vals, key in rows:
        # counts and areas cannot go below 0; the towns - rural difference can
        ci = M.mean_ci(vals, confidence, None if " - " in label else (0.0, math.inf))
        body.append([label, ci.n, ci.mean, _ci(ci.lo, ci.hi),
                     *([] if pipeline else [paper.get(key, "")])])
    table = md_table(["measure (over runs)", "runs", "mean", f"{confidence:.0%} CI"]
                     + ([] if pipeline else ["paper"]), body)
    return f"### Over runs\n\n{table}\n\n"
