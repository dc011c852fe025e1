"""Every figure of a culture run, from its raw data files only (the runner and
``recompute.py`` both call :func:`figures`, so the report's numbers are recomputable).

Raw files of an experiment folder (one row per run label ``run``):
``residents.csv`` (name, home, priest, x, z), ``towns.csv``, ``speech.csv`` (what agents
said in the world: agent, t, text; delivered lines only), ``memes.csv`` (agent, t, goal,
topic), ``positions.csv`` (agent, t, x, z, by: admin_api or perception) and per run its
settings (duration_s, speech_attempted, sample_every_s, hearing_radius, area_cell) as
``settings.json``. Times are protocol
seconds.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from experiments import plots
from experiments.culture.memes import group_memes, memes_over_time
from experiments.culture.population import RURAL
from experiments.culture.religion import (
    LEVELS,
    NONE,
    conversions,
    converts_over_time,
    influence_over_time,
    level_at,
)
from experiments.files import read_csv

TOWNS = "towns"  # all town residents together
SETTINGS = "settings.json"


def sample_times(duration_s: float, every_s: float) -> list[float]:
    """0, every_s, 2 every_s, ... and always the run's end, so "final" figures cover the
    whole run even when the duration is not a multiple of the sampling period."""
    n = math.floor(duration_s / every_s + 1e-9)
    times = [round(k * every_s, 6) for k in range(n + 1)]
    if duration_s - times[-1] > 1e-6:
        times.append(round(duration_s, 6))
    return times


def _by_run(rows: Sequence[Mapping[str, str]]) -> dict[str, list[Mapping[str, str]]]:
    out: dict[str, list[Mapping[str, str]]] = defaultdict(list)
    for r in rows:
        out[r["run"]].append(r)
    return out


def run_figures(info: Mapping[str, Any], residents: Sequence[Mapping[str, str]],
                speech: Sequence[Mapping[str, str]], memes: Sequence[Mapping[str, str]],
                positions: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """The figures of one run."""
    times = sample_times(float(info["duration_s"]), float(info["sample_every_s"]))
    homes: dict[str, list[str]] = defaultdict(list)
    for r in residents:
        homes[r["home"]].append(r["name"])
    town_names = sorted(h for h in homes if h != RURAL)
    groups = {**{h: homes[h] for h in town_names}, TOWNS: [a for h in town_names
                                                           for a in homes[h]],
              RURAL: homes.get(RURAL, [])}
    end = times[-1]
    per_agent = memes_over_time(memes, [r["name"] for r in residents], times)
    over_time = []
    for i, t in enumerate(times):
        row: dict[str, Any] = {"t": t}
        for g, names in groups.items():
            row[g] = (sum(per_agent[a][i] for a in names) / len(names)) if names else None
        over_time.append(row)
    priests = [r["name"] for r in residents if r["priest"] in ("True", "true", "1")]
    radius = float(info["hearing_radius"])
    conv = conversions(speech)
    c_rows = converts_over_time(conv, priests, times)
    i_rows = influence_over_time(conv, priests, positions, times, radius,
                                 float(info["area_cell"]))
    levels = {a: LEVELS[lv] for a, c in conv.items()
              if a not in priests and (lv := level_at(c, end)) != NONE}
    return {
        "agents": len(residents), "priests": len(priests), "times": len(times),
        "speech_lines": len(speech),
        "speech_attempted": int(info.get("speech_attempted", len(speech))),
        "memes_final": group_memes(memes, groups, end),
        "memes_per_capita_over_time": over_time,
        "memes_per_agent_final": {a: v[-1] for a, v in sorted(per_agent.items())},
        "converts_over_time": c_rows,
        "influence_over_time": i_rows,
        "converts_final": c_rows[-1],
        "influence_final": i_rows[-1],
        "convert_levels": dict(sorted(levels.items())),
        "priests_heard_saying_it": sorted(a for a in priests if a in conv),
        "hearing_radius": radius,
    }


def figures(folder: Path) -> dict[str, dict[str, Any]]:
    """run label -> figures, from the raw files in ``folder``."""
    info = json.loads((folder / SETTINGS).read_text(encoding="utf-8"))
    tables = {k: _by_run(read_csv(folder / f"{k}.csv"))
              for k in ("residents", "speech", "memes", "positions")}
    return {run: run_figures(meta, tables["residents"].get(run, []),
                             tables["speech"].get(run, []), tables["memes"].get(run, []),
                             tables["positions"].get(run, []))
            for run, meta in sorted(info.items())}


def draw(folder: Path, figs: Mapping[str, Mapping[str, Any]]) -> list[Path]:
    """The PNG plots of every run into ``folder/plots``."""
    out = []
    pd = folder / "plots"
    for run, f in figs.items():
        groups = {g: v["per_capita"] for g, v in f["memes_final"].items()
                  if math.isfinite(v["per_capita"])}
        out.append(plots.bars(pd / f"memes_per_capita_{run}.png", {"memes per capita": groups},
                              title=f"Memes per capita at the end, towns vs rural ({run})",
                              ylabel="distinct memes per agent"))
        ts = [r["t"] for r in f["memes_per_capita_over_time"]]
        series = {g: (ts, [r[g] if r[g] is not None else math.nan
                           for r in f["memes_per_capita_over_time"]])
                  for g in f["memes_per_capita_over_time"][0] if g != "t"}
        out.append(plots.lines(pd / f"memes_over_time_{run}.png", series,
                               title=f"Memes per capita over time ({run})",
                               xlabel="protocol s", ylabel="memes per agent"))
        ct = [r["t"] for r in f["converts_over_time"]]
        out.append(plots.lines(pd / f"converts_over_time_{run}.png",
                               {label: (ct, [r[k] for r in f["converts_over_time"]])
                                for k, label in (("indirect", "indirect only"),
                                                 ("direct", "direct"), ("any", "either level"))},
                               title=f"Converts over time (priests excluded) ({run})",
                               xlabel="protocol s", ylabel="agents"))
        it = [r["t"] for r in f["influence_over_time"]]
        out.append(plots.lines(pd / f"influence_over_time_{run}.png",
                               {k: (it, [r[k] for r in f["influence_over_time"]])
                                for k in ("area_any", "area_direct")},
                               title=f"Area of influence of converts ({run}, hearing radius "
                                     f"{f['hearing_radius']:g})",
                               xlabel="protocol s", ylabel="square blocks"))
    return out
