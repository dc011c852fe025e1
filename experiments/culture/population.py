"""Who lives where in a culture run: the experiment's own ledger of towns, rural agents and
priests, generated from a seed.

Names come from a seeded syllable generator and traits from seeded trait pools (both here,
inspectable); inventories are random draws from a pool; every agent's location memories
name every town's centre (the paper: "town locations in every agent's memory"). The ledger
(who is a priest, which town) is bookkeeping for the analysis; an agent gets only its own
config. A priest differs from anyone else only by the traits of its own profile.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from agent_runtime.config.game_names import Inventory
from agent_runtime.config.models import Strict

RURAL = "rural"

_ONSETS = ("b", "br", "c", "d", "dr", "f", "g", "gr", "h", "j", "k", "l", "m", "n", "p",
           "r", "s", "st", "t", "th", "v", "w", "z")
_VOWELS = ("a", "e", "i", "o", "u", "ae", "ia", "ou", "y")
_CODAS = ("", "", "n", "r", "l", "s", "th", "m", "x", "nd")


class Population(Strict):
    """The paper's population at scale 1 (``protocol.population`` of config.yaml)."""

    agents: int = Field(default=500, ge=2)
    towns: int = Field(default=6, ge=1)
    per_town: int = Field(default=33, ge=1)
    town_radius: float = Field(default=50.0, gt=0)
    priests: int = Field(default=20, ge=1)
    area: tuple[float, float] = (1000.0, 1200.0)  # x by z blocks
    centre: tuple[float, float] = (0.0, 0.0)
    y: float = 64.0
    personality_traits: tuple[str, ...] = Field(min_length=2)
    occupations: tuple[str, ...] = Field(min_length=1)
    traits_per_agent: int = Field(default=3, ge=1)
    priest_traits: tuple[str, ...] = Field(min_length=1)
    inventory_pool: Inventory = Field(min_length=1)  # item -> max count
    items_per_agent: tuple[int, int] = (2, 5)


@dataclass(frozen=True, slots=True)
class Resident:
    name: str
    home: str  # a town's name or RURAL
    priest: bool
    x: float
    z: float
    traits: tuple[str, ...]
    inventory: dict[str, int]


@dataclass(frozen=True, slots=True)
class Town:
    name: str
    x: float
    z: float
    radius: float


def scaled(p: Population, scale: float) -> Population:
    """The population at ``scale``: agents, towns' sizes and priests times ``scale``; the area
    and the town radius times sqrt(scale) (so densities stay the paper's); 6 towns stay 6
    while each keeps at least one resident."""
    if scale == 1.0:
        return p
    agents = max(2, round(p.agents * scale))
    per_town = max(1, round(p.per_town * scale))
    towns = max(1, min(p.towns, agents // (per_town + 1)))
    side = math.sqrt(scale)
    return p.model_copy(update={
        "agents": agents, "towns": towns, "per_town": per_town,
        "priests": max(1, min(per_town, round(p.priests * scale))),
        "area": (p.area[0] * side, p.area[1] * side), "town_radius": p.town_radius * side,
    })


def make_name(rng: random.Random, taken: set[str]) -> str:
    """A pronounceable Minecraft-valid name (3-16 letters), unique case-insensitively."""
    while True:
        n = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 2)))
        n = (n + rng.choice(_CODAS)).capitalize()
        if len(n) < 3:
            continue
        if n.lower() in taken:
            n = f"{n}{rng.randint(2, 99)}"
        if n.lower() not in taken and len(n) <= 16:
            taken.add(n.lower())
            return n


def place_towns(p: Population, rng: random.Random) -> list[Town]:
    """Town centres inside the area, at least three radii apart (best effort)."""
    w, h = p.area
    r = p.town_radius
    towns: list[Town] = []
    for i in range(p.towns):
        best: tuple[float, float] = (p.centre[0], p.centre[1])
        for _ in range(200):
            x = p.centre[0] + rng.uniform(-w / 2 + r, w / 2 - r) if w > 2 * r else p.centre[0]
            z = p.centre[1] + rng.uniform(-h / 2 + r, h / 2 - r) if h > 2 * r else p.centre[1]
            best = (x, z)
            if all(math.hypot(x - t.x, z - t.z) >= 3 * r for t in towns):
                break
        towns.append(Town(f"Town{i + 1}", round(best[0], 1), round(best[1], 1), r))
    return towns


def _in_disc(rng: random.Random, x: float, z: float, r: float) -> tuple[float, float]:
    a, d = rng.uniform(0, 2 * math.pi), r * math.sqrt(rng.random())
    return round(x + d * math.cos(a), 1), round(z + d * math.sin(a), 1)


def _rural_spot(rng: random.Random, p: Population, towns: Sequence[Town]) -> tuple[float, float]:
    w, h = p.area
    for _ in range(200):
        x = round(p.centre[0] + rng.uniform(-w / 2, w / 2), 1)
        z = round(p.centre[1] + rng.uniform(-h / 2, h / 2), 1)
        if all(math.hypot(x - t.x, z - t.z) > t.radius for t in towns):
            return x, z
    return x, z


def _inventory(rng: random.Random, p: Population) -> dict[str, int]:
    lo, hi = p.items_per_agent
    items = rng.sample(sorted(p.inventory_pool), min(len(p.inventory_pool), rng.randint(lo, hi)))
    return {it: rng.randint(1, p.inventory_pool[it]) for it in items}


def _traits(rng: random.Random, p: Population) -> tuple[str, ...]:
    chosen = rng.sample(list(p.personality_traits), min(p.traits_per_agent,
                                                          len(p.personality_traits)))
    return (*chosen, rng.choice(p.occupations))


def populate(p: Population, seed: int) -> tuple[list[Town], list[Resident]]:
    """Towns first (the priests live in the first town), then the rural agents."""
    rng = random.Random(seed)
    towns = place_towns(p, rng)
    taken: set[str] = set()
    people: list[Resident] = []
    for ti, town in enumerate(towns):
        for k in range(p.per_town):
            if len(people) >= p.agents:
                break
            priest = ti == 0 and k < p.priests
            x, z = _in_disc(rng, town.x, town.z, town.radius)
            traits = p.priest_traits if priest else _traits(rng, p)
            people.append(Resident(make_name(rng, taken), town.name, priest, x, z,
                                   tuple(traits), _inventory(rng, p)))
    while len(people) < p.agents:
        x, z = _rural_spot(rng, p, towns)
        people.append(Resident(make_name(rng, taken), RURAL, False, x, z, _traits(rng, p),
                               _inventory(rng, p)))
    return towns, people


def town_memories(towns: Sequence[Town], y: float) -> tuple[str, ...]:
    return tuple(f"{t.name} is a town centred at ({t.x:.0f}, {y:.0f}, {t.z:.0f})."
                 for t in towns)


def agent_specs(p: Population, towns: Sequence[Town], people: Sequence[Resident]
                ) -> list[dict[str, Any]]:
    """The village file's ``agents`` entries: each agent's own config, nothing else."""
    memories = town_memories(towns, p.y)
    return [
        {"name": r.name, "traits": list(r.traits), "location_memories": list(memories),
         "spawn_location": {"x": r.x, "y": p.y, "z": r.z}, "inventory": dict(r.inventory)}
        for r in people
    ]
