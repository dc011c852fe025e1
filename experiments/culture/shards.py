"""The culture area over several Minecraft servers (``--shards K``): K rectangles of the area,
one per server of ``world.shards`` (agent_runtime/config/shards.py).

The area is cut in two across its longer side, each part again, and so on (a k-d split) until
there are K parts; a part that is to hold k of the K servers gets k/K of the agents. Each cut
sits where the agents' spawns split them in that share, moved to the nearest line that crosses
fewer town discs (a town's residents then share a server: chat is heard only on the speaker's
server) as long as each side keeps its share of agents within ``BALANCE``. With 2 servers this
is one cut across the longer side (strips); where towns are dense (the paper's scale, 6 towns
of radius 50 over 10 servers) a cut may still cross a town. ``towns.csv`` names the shard
holding each town's centre, ``residents.csv`` each agent's first shard.

The parts tile the plane: the outer ones reach ``OUTER`` blocks beyond the area, so a body
that wanders out of the area is still in one. Agents start on the shard whose part holds
their spawn, so a town belongs to the shard holding it; a body that walks over a border
changes servers (``shard_transfer`` events). Each server builds its own generated village
(the runtime's ``world.layout``) in the middle of its part of the area; culture's towns are
positions, not buildings, and agents do not remember the generated places
(``include_place_memories: false``).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_runtime.config.shards import Region
from experiments.culture.population import Population, Resident, Town

BORDER_MARGIN = 1.0  # blocks between a town disc and a cut moved out of it
MIN_SIDE = 8.0  # blocks: the narrowest part
BALANCE = 0.25  # a cut moved out of a town keeps each side's agents within this share
BUDGET_HEADROOM = 1.5  # bots a server may hold: its spawns times this (bodies cross borders)
OUTER = 10_000.0  # blocks the outer parts reach beyond the area


@dataclass(frozen=True)
class Box:
    x0: float
    x1: float
    z0: float
    z1: float

    def holds(self, x: float, z: float) -> bool:
        return self.x0 <= x < self.x1 and self.z0 <= z < self.z1


def _crosses(c: float, centre: float, radius: float) -> bool:
    return abs(c - centre) < radius + BORDER_MARGIN / 2


def cut(values: Sequence[float], discs: Sequence[tuple[float, float]], share: float,
        lo: float, hi: float) -> float:
    """Where to cut ``lo..hi`` so that ``share`` of ``values`` lie below: their quantile, or
    the nearest disc edge that crosses fewer ``discs`` (centre, radius) while the count below
    stays within ``BALANCE`` of the even share."""
    xs = sorted(values)
    n = len(xs)
    want = share * n
    j = min(n - 1, max(1, round(want))) if n > 1 else 0
    target = (xs[j - 1] + xs[j]) / 2 if n > 1 else lo + (hi - lo) * share
    floor, ceiling = lo + MIN_SIDE, hi - MIN_SIDE
    slack = max(1.0, BALANCE * want, BALANCE * (n - want))
    edges = [e for c, r in discs for e in (c - r - BORDER_MARGIN, c + r + BORDER_MARGIN)]
    candidates = [c for c in (target, *edges) if floor <= c <= ceiling
                  and abs(bisect.bisect_left(xs, c) - want) <= slack]
    if not candidates:
        candidates = [min(max(target, floor), ceiling)] if floor <= ceiling else [(lo + hi) / 2]

    def cost(c: float) -> tuple[int, float]:
        return sum(1 for centre, r in discs if _crosses(c, centre, r)), abs(c - target)

    best = min(candidates, key=cost)
    return round(best, 1)


def split(people: Sequence[Resident], towns: Sequence[Town], k: int, box: Box) -> list[Box]:
    """``box`` cut into ``k`` parts (k-d: across the longer side, shares of the agents)."""
    if k < 1:
        raise ValueError("need at least one shard")
    if k == 1:
        return [box]
    k1 = k // 2
    inside = [r for r in people if box.holds(r.x, r.z)]
    near = [t for t in towns if t.x + t.radius > box.x0 and t.x - t.radius < box.x1
            and t.z + t.radius > box.z0 and t.z - t.radius < box.z1]
    if box.x1 - box.x0 >= box.z1 - box.z0:
        c = cut([r.x for r in inside], [(t.x, t.radius) for t in near], k1 / k, box.x0, box.x1)
        a, b = Box(box.x0, c, box.z0, box.z1), Box(c, box.x1, box.z0, box.z1)
    else:
        c = cut([r.z for r in inside], [(t.z, t.radius) for t in near], k1 / k, box.z0, box.z1)
        a, b = Box(box.x0, box.x1, box.z0, c), Box(box.x0, box.x1, c, box.z1)
    return split(inside, towns, k1, a) + split(inside, towns, k - k1, b)


def shard_settings(pop: Population, towns: Sequence[Town], people: Sequence[Resident],
                   k: int, layout: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``world.shards`` for the area of ``pop`` in ``k`` parts; each server's generated
    village (``layout``: the village's ``world.layout``) in the middle of its part."""
    (cx, cz), (w, h) = pop.centre, pop.area
    area = Box(cx - w / 2, cx + w / 2, cz - h / 2, cz + h / 2)
    out = []
    for i, part in enumerate(split(people, towns, k, area)):
        region = {  # the outer edges reach beyond the area
            "x_min": part.x0 - OUTER if part.x0 <= area.x0 else part.x0,
            "x_max": part.x1 + OUTER if part.x1 >= area.x1 else part.x1,
            "z_min": part.z0 - OUTER if part.z0 <= area.z0 else part.z0,
            "z_max": part.z1 + OUTER if part.z1 >= area.z1 else part.z1,
        }
        centre = {"centre_x": math.floor((part.x0 + part.x1) / 2),
                  "centre_z": math.floor((part.z0 + part.z1) / 2)}
        spawned = sum(1 for r in people if part.holds(r.x, r.z))
        out.append({"name": f"shard{i}", "region": {k: round(v, 1) for k, v in region.items()},
                    "layout": {**(layout or {}), **centre},
                    "max_bots": min(1000, max(2, math.ceil(spawned * BUDGET_HEADROOM) + 2))})
    return out


def shard_of(x: float, z: float, shards: Sequence[dict[str, Any]]) -> str:
    """The name of the shard of ``shards`` (from :func:`shard_settings`) holding (x, z), else
    the nearest one (as the runtime's router decides)."""
    regions = [Region.model_validate(s["region"]) for s in shards]
    for s, region in zip(shards, regions, strict=True):
        if region.contains(x, z):
            return str(s["name"])
    i = min(range(len(shards)), key=lambda i: regions[i].distance(x, z))
    return str(shards[i]["name"])
