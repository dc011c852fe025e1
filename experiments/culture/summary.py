"""The culture report's tables (one block per run), built from the recomputed figures.

A heuristic-brain run is a pipeline check: no paper column (``experiments.report``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.culture.population import RURAL, Population
from experiments.report import md_table

TOWNS = "towns"


def scale_note(p: Population) -> str:
    return (f"{p.agents} agents, {p.towns} towns of {p.per_town}, "
            f"{max(0, p.agents - p.towns * p.per_town)} rural, {p.priests} priests, area "
            f"{p.area[0]:.0f} x {p.area[1]:.0f} blocks, town radius {p.town_radius:.1f}")


def run_tables(run: str, f: Mapping[str, Any], pipeline: bool, paper: Mapping[str, Any]) -> str:
    groups = [g for g in f["memes_final"] if g not in (TOWNS, RURAL)] + [TOWNS, RURAL]
    m = f["memes_final"]
    memes = md_table(
        ["group", "agents", "memes per agent", "distinct memes", "distinct per agent"]
        + ([] if pipeline else ["paper"]),
        [[g, m[g]["members"], m[g]["per_capita"], m[g]["distinct"],
          m[g]["distinct_per_capita"], *([] if pipeline else [paper.get("memes", "")])]
         for g in groups])
    c, i = f["converts_final"], f["influence_final"]
    rows: list[list[Any]] = [
        ["indirect converts (said pasta/spaghetti only)", c["indirect"]],
        ["direct converts (said Pastafarian/Spaghetti Monster)", c["direct"]],
        ["area of influence, any level (square blocks)", i["area_any"]],
        ["area of influence, direct converts (square blocks)", i["area_direct"]],
        ["speech lines delivered / attempted", f"{f['speech_lines']} / {f['speech_attempted']}"],
        ["priests who said it", len(f["priests_heard_saying_it"])],
    ]
    rel = md_table(["measure", "value"] + ([] if pipeline else ["paper"]),
                   [[*r, *([] if pipeline else [paper.get("religion", "")])] for r in rows])
    return (f"### Run {run}\n\nMemes at the end (distinct topics of each agent's own goals):"
            f"\n\n{memes}\n\nReligion at the end (non-priests; {f['priests']} priests apart; "
            f"hearing radius {f['hearing_radius']:g} blocks):\n\n{rel}\n\n")
