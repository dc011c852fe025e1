"""What the tax experiment tells the agents, and where the community chests are.

The world speaks to agents only in words (see ``/tmp/team``'s brain contract, section 2):
an announcement ``{"kind": "announcement", "speaker", "text", "at"}`` on the run's
``world:event`` topic, read by each agent's perception module. The rate, the chests and the
window the experiment needs for its own bookkeeping stay in its ledger; what an agent knows
of them is what these texts say (and the chest positions in its own location memories).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_runtime.config.layout import VillageLayout

Chest = tuple[int, int, int]


def chest_positions(layout: VillageLayout) -> list[Chest]:
    """Where the world generator puts the community chests (``bots/server/generator/plan.js``,
    ``buildTownHall``): along the town hall's north wall, every second block from two blocks
    in. The runner checks this against the embedded server's own list."""
    x0 = layout.centre_x + layout.town_hall.dx
    z0 = layout.centre_z + layout.town_hall.dz
    x1 = x0 + layout.town_hall.width - 1
    out = []
    for i in range(layout.community_chests):
        x = x0 + 2 + 2 * i
        if x > x1 - 2:
            break
        out.append((x, layout.ground_level + 1, z0 + 1))
    return out


def _places(chests: Sequence[Chest]) -> str:
    spots = [f"({x}, {y}, {z})" for x, y, z in chests]
    return spots[0] if len(spots) == 1 else ", ".join(spots[:-1]) + " and " + spots[-1]


def chest_memory(chests: Sequence[Chest]) -> str:
    """The location memory every agent gets (its own identity)."""
    if not chests:
        return ""
    noun = "chest is" if len(chests) == 1 else "chests are"
    return f"The village's community {noun} in the town hall at {_places(chests)}."


def constitution_text(text: str) -> str:
    return "The constitution of the village reads: " + " ".join(text.split())


def season_open_text(season: int, rate: float, window_wall_s: float, chests: Sequence[Chest]) -> str:
    where = f" at {_places(chests)}" if chests else " in the town hall"
    secs = f"{window_wall_s:.1f}".rstrip("0").rstrip(".")
    return (f"Tax season {season} is open for {secs} seconds: deposit {round(rate * 100)}% of "
            f"your inventory into the community chests{where}.")


def season_close_text(season: int) -> str:
    return f"Tax season {season} is closed."


def announcement(speaker: str, text: str, at: float) -> dict[str, Any]:
    """The whole payload an agent can read: nothing but words, who said them, and when."""
    return {"kind": "announcement", "speaker": speaker, "text": text, "at": at}
