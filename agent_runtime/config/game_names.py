"""The types of the config fields that name a Minecraft block or item.

A field typed :data:`ItemName` (or a mapping keyed by one, :data:`Inventory`) holds a name
minecraft-data must know at the run's ``world.version``: an agent's starting inventory, an
experiment's food or inventory pool, the village's crops. The type only marks the field;
:mod:`agent_runtime.config.name_check` finds every marked value of a validated model and
checks it at the version. This module imports only the standard library.
"""

from __future__ import annotations

from typing import Annotated, Final

__all__ = ["GAME_NAME", "Inventory", "ItemName"]


class _GameName:
    """The marker in :data:`ItemName`'s metadata."""

    def __repr__(self) -> str:
        return "GAME_NAME"


GAME_NAME: Final = _GameName()

#: a block or item name at the run's Minecraft version (e.g. ``oak_log``, ``bread``)
ItemName = Annotated[str, GAME_NAME]

#: item name -> count
Inventory = dict[ItemName, int]
