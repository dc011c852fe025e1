"""What to do about a failed step, read from the body's own words for the failure (the
agent's own action log): the ingredient, fuel or station it said was missing.

``bots/body/skills`` report e.g. "missing ingredients: 2 oak_planks, 1 stick", "missing
fuel: 1 oak_planks", "no fuel in inventory (...)", "no crafting table within 16 blocks (and
none in inventory)", "no furnace within 32 blocks (...)".
"""

from __future__ import annotations

import re

from modules.knowledge import DROPS, FAMILIES, LOGS, PLANKS, RECIPES, SMELTING, count_of
from modules.techtree import Step, craft_step, fuel_step, need_step

__all__ = ["missing_station", "missing_step"]

_MISSING = re.compile(r"missing ingredients?: (\d+) ([a-z_]+)")
_NO_FUEL = re.compile(r"missing fuel|no fuel|no [a-z_]+ in inventory to use as fuel")
_STATIONS = {"no crafting table within": "crafting_table", "no furnace within": "furnace"}


#: the items the tech tree knows how to get (a recipe's ingredient, a block's drop, a smelt)
KNOWN: frozenset[str] = frozenset(
    {*RECIPES, *(n for r in RECIPES.values() for n in r.needs), *DROPS.values(), *SMELTING}
    | {*SMELTING.values(), *LOGS, *PLANKS, *FAMILIES}
)


def _known(need: str) -> str | None:
    """``need`` as the tech tree knows it: itself, its family (``pale_oak_planks``: a plank
    kind of a newer Minecraft, any planks serve), or None (``cobbled_deepslate``: a 1.17+
    stand-in for cobblestone the body named from its version's recipe list; the plan's own
    step then gets what the tech tree uses)."""
    if need in KNOWN:
        return need
    family = need.rsplit("_", 1)[-1]
    return family if "_" in need and family in FAMILIES else None


def missing_step(reason: str, inv: dict[str, int], seen: dict[str, float]) -> Step | None:
    """The step that gets what a failure said was missing (None: nothing was, or nothing
    the tech tree knows how to get)."""
    missing = _MISSING.search(reason)
    if missing is not None:
        n, need = int(missing.group(1)), _known(missing.group(2))
        if need is None:
            return None
        return need_step(need, count_of(inv, need) + n, inv, seen)
    if _NO_FUEL.search(reason):
        return fuel_step(inv, seen)
    return None


def missing_station(reason: str, inv: dict[str, int], seen: dict[str, float]) -> Step | None:
    """A crafting table or furnace to make when a failure said none was near or held."""
    for words, station in _STATIONS.items():
        if words in reason:
            return craft_step(
                station, {**inv, station: 0}, {k: v for k, v in seen.items() if k != station}
            )
    return None
