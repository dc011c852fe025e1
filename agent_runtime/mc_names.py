"""Block and item names at a Minecraft version, from minecraft-data (the Python side of
``bots/server/mc_names.js``): the world's vocabulary, which the heuristics (``modules``) and
the bodies' tests both read, so it lives in the core.

Our heuristics, skills and prompts were written with 1.16.5 names; Mojang renamed a few since
(``grass`` -> ``short_grass`` in 1.20.3, ``grass_path`` -> ``dirt_path`` in 1.17) and from
1.17 an iron ore drops ``raw_iron``. What a version calls a block or item, and what a block
drops, is read here from minecraft-data for that version, never typed per version.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: the bots' Node packages (``make setup`` installs them beside the bodies); another folder
#: through ``PIANO_NODE_MODULES``, as the bots' Node scripts take it
_NODE_MODULES = Path(
    os.environ.get("PIANO_NODE_MODULES")
    or Path(__file__).resolve().parent.parent / "bots" / "node_modules"
)
_MC_DATA = _NODE_MODULES / "minecraft-data" / "minecraft-data" / "data"


def _data(version: str, kind: str) -> Any:
    paths = json.loads((_MC_DATA / "dataPaths.json").read_text())["pc"]
    folder = paths.get(version, {}).get(kind)
    if folder is None:
        raise ValueError(f"minecraft-data has no {kind} of Minecraft {version}")
    return json.loads((_MC_DATA / Path(folder) / f"{kind}.json").read_text())


@functools.cache
def items(version: str) -> frozenset[str]:
    """Every item name of ``version``."""
    return frozenset(str(i["name"]) for i in _data(version, "items"))


@functools.cache
def blocks(version: str) -> frozenset[str]:
    """Every block name of ``version``."""
    return frozenset(str(b["name"]) for b in _data(version, "blocks"))


@functools.cache
def drops_of(version: str, block: str) -> tuple[str, ...]:
    """The items ``block`` drops at ``version`` when dug by hand or tool without silk touch
    (minecraft-data's block loot; e.g. ``iron_ore``: ``iron_ore`` at 1.16.5, ``raw_iron``
    from 1.17). Unknown block: ValueError."""
    if block not in blocks(version):
        raise ValueError(f"unknown block {block} at Minecraft {version}")
    for row in _data(version, "blockLoot"):
        if row["block"] == block:
            return tuple(
                str(d["item"])
                for d in row["drops"]
                if not d.get("silkTouch") and str(d["item"]) in items(version)
            )
    return ()


def unknown(version: str, names: Iterable[str]) -> list[str]:
    """The ``names`` that are neither an item nor a block at ``version`` (sorted)."""
    known = items(version) | blocks(version)
    return sorted({n for n in names if n not in known})


@functools.cache
def mineflayer_versions() -> tuple[str, ...]:
    """The Minecraft versions the bodies' mineflayer lists as tested (its ``lib/version.js``),
    oldest first; empty when the Node packages are not installed."""
    source = _NODE_MODULES / "mineflayer" / "lib" / "version.js"
    if not source.exists():
        return ()
    m = re.search(r"testedVersions\s*=\s*\[([^\]]*)\]", source.read_text())
    return tuple(re.findall(r"'([^']+)'", m.group(1))) if m else ()
