"""What to do about a failed step, read from the body's own words for the failure (the
agent's own action log): the ingredient, fuel or station it said was missing.

``bots/body/skills`` report e.g. "missing ingredients: 2 oak_planks, 1 stick", "missing
fuel: 1 oak_planks", "no fuel in inventory (...)", "no crafting table within 16 blocks (and
none in inventory)", "no furnace within 32 blocks (...)".
"""

from __future__ import annotations

import re

from modules.knowledge import count_of
from modules.techtree import Step, craft_step, fuel_step, need_step

__all__ = ["missing_station", "missing_step"]

_MISSING = re.compile(r"missing ingredients?: (\d+) ([a-z_]+)")
_NO_FUEL = re.compile(r"missing fuel|no fuel|no [a-z_]+ in inventory to use as fuel")
_STATIONS = {"no crafting table within": "crafting_table", "no furnace within": "furnace"}


def missing_step(reason: str, inv: dict[str, int], seen: dict[str, float]) -> Step | None:
    """The step that gets what a failure said was missing (None: nothing was)."""
    missing = _MISSING.search(reason)
    if missing is not None:
        n, need = int(missing.group(1)), missing.group(2)
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
