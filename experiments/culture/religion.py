"""Religion: who converted, when, and the area within which converts can be heard.

Read only from what agents said in the world (the run's delivered ``speech`` records): an
agent is a *direct* convert from the first time it says "Pastafarian" or "Spaghetti
Monster", an *indirect* convert from the first time it says "Pasta" or "Spaghetti"
(whole-word starts, case-insensitive). Levels only go up. Priests are counted apart (they
are the source, not converts).

Area of influence at time t: the union of the discs of radius ``hearing_radius`` (the
world's chat range) around every convert's latest sampled position, in square blocks,
rasterised on a grid of ``cell`` blocks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

NONE, INDIRECT, DIRECT = 0, 1, 2
LEVELS = {NONE: "none", INDIRECT: "indirect", DIRECT: "direct"}
_DIRECT = re.compile(r"\b(pastafarian\w*|spaghetti\s+monster)", re.I)
_INDIRECT = re.compile(r"\b(pasta|spaghetti)", re.I)


def level_of(text: str) -> int:
    if _DIRECT.search(text):
        return DIRECT
    if _INDIRECT.search(text):
        return INDIRECT
    return NONE


def conversions(speech: Iterable[Mapping[str, Any]]) -> dict[str, dict[int, float]]:
    """agent -> {level: first time it said words of that level (or a higher one)}."""
    out: dict[str, dict[int, float]] = {}
    for r in sorted(speech, key=lambda r: float(r["t"])):
        lv = level_of(str(r["text"]))
        if lv == NONE:
            continue
        mine = out.setdefault(str(r["agent"]), {})
        for k in range(INDIRECT, lv + 1):  # a direct convert is at least indirect
            mine.setdefault(k, float(r["t"]))
    return out


def level_at(conv: Mapping[int, float], t: float) -> int:
    return max((k for k, at in conv.items() if at <= t), default=NONE)


def converts_over_time(conv: Mapping[str, Mapping[int, float]], exclude: Iterable[str],
                       times: Sequence[float]) -> list[dict[str, Any]]:
    """Rows (t, indirect, direct, any): converts at each level at each time (indirect =
    exactly indirect, direct = direct, any = either)."""
    skip = set(exclude)
    rows = []
    for t in times:
        lv = [level_at(c, t) for a, c in conv.items() if a not in skip]
        d = sum(1 for x in lv if x == DIRECT)
        i = sum(1 for x in lv if x == INDIRECT)
        rows.append({"t": t, "indirect": i, "direct": d, "any": i + d})
    return rows


def union_area(points: Sequence[tuple[float, float]], radius: float, cell: float = 2.0) -> float:
    """Area (square blocks) of the union of discs of ``radius`` around ``points``."""
    if not points:
        return 0.0
    xs = np.array([p[0] for p in points])
    zs = np.array([p[1] for p in points])
    x0, z0 = xs.min() - radius, zs.min() - radius
    nx = math.ceil((xs.max() + radius - x0) / cell) + 1
    nz = math.ceil((zs.max() + radius - z0) / cell) + 1
    grid = np.zeros((nx, nz), dtype=bool)
    k = math.ceil(radius / cell) + 1
    off = np.arange(-k, k + 1)
    for x, z in points:
        ci, cj = int((x - x0) / cell), int((z - z0) / cell)
        ii, jj = ci + off[:, None], cj + off[None, :]
        cx, cz = x0 + (ii + 0.5) * cell, z0 + (jj + 0.5) * cell
        inside = (cx - x) ** 2 + (cz - z) ** 2 <= radius * radius
        ok = inside & (ii >= 0) & (ii < nx) & (jj >= 0) & (jj < nz)
        grid[np.broadcast_to(ii, ok.shape)[ok], np.broadcast_to(jj, ok.shape)[ok]] = True
    return float(grid.sum()) * cell * cell


def position_at(track: Sequence[tuple[float, float, float]], t: float
                ) -> tuple[float, float] | None:
    """The latest (x, z) sampled at or before ``t`` (the first one before any sample)."""
    best: tuple[float, float] | None = None
    for at, x, z in track:
        if at <= t or best is None:
            best = (x, z)
        if at > t:
            break
    return best


def influence_over_time(conv: Mapping[str, Mapping[int, float]], exclude: Iterable[str],
                        positions: Iterable[Mapping[str, Any]], times: Sequence[float],
                        radius: float, cell: float = 2.0) -> list[dict[str, Any]]:
    """Rows (t, area_any, area_direct): the area of influence of converts (any level /
    direct only) at each time, from the sampled positions (rows agent, t, x, z)."""
    tracks: dict[str, list[tuple[float, float, float]]] = {}
    for r in positions:
        tracks.setdefault(str(r["agent"]), []).append((float(r["t"]), float(r["x"]),
                                                       float(r["z"])))
    for tr in tracks.values():
        tr.sort()
    skip = set(exclude)
    rows = []
    for t in times:
        pts: dict[int, list[tuple[float, float]]] = {INDIRECT: [], DIRECT: []}
        for a, c in conv.items():
            lv = level_at(c, t)
            if a in skip or lv == NONE:
                continue
            p = position_at(tracks.get(a, []), t)
            if p is None:
                continue
            pts[INDIRECT].append(p)
            if lv == DIRECT:
                pts[DIRECT].append(p)
        rows.append({"t": t, "area_any": union_area(pts[INDIRECT], radius, cell),
                     "area_direct": union_area(pts[DIRECT], radius, cell)})
    return rows
