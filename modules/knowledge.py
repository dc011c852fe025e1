"""Minecraft facts the heuristic policies reason with (1.16.5 names).

A small tech tree: what a block drops, what a recipe needs, which tool a block
needs; and the activities (goal kinds) agents pursue, each with the skills that
advance it. The LLM policies do not need this; it keeps the heuristic brain
grounded in what the world really allows.

What digging a block gives changed between the Minecraft versions the runtime serves (an
iron ore gives ``iron_ore`` at 1.16.5 and ``raw_iron`` from 1.17): :func:`counts_as` reads
it from minecraft-data for every supported version (``agent_runtime/mc_names.py``), and the agent
counts whichever its own inventory shows (no version flag: it is not part of its view).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

from agent_runtime import mc_names
from agent_runtime.config.models import SUPPORTED_VERSIONS

log = logging.getLogger(__name__)

# block -> item it drops when mined with the right tool
DROPS: dict[str, str] = {
    "stone": "cobblestone",
    "coal_ore": "coal",
    "iron_ore": "iron_ore",
    "gold_ore": "gold_ore",
    "diamond_ore": "diamond",
    "grass_block": "dirt",
    "oak_leaves": "oak_sapling",
    "birch_leaves": "birch_sapling",
    "wheat": "wheat",
    "carrots": "carrot",
    "potatoes": "potato",
}

# block -> minimum pickaxe tier needed to get a drop
TOOL_TIER: dict[str, int] = {
    "stone": 1,
    "cobblestone": 1,
    "coal_ore": 1,
    "iron_ore": 2,
    "gold_ore": 3,
    "diamond_ore": 3,
}
PICKAXES: tuple[tuple[str, int], ...] = (
    ("diamond_pickaxe", 4),
    ("iron_pickaxe", 3),
    ("stone_pickaxe", 2),
    ("wooden_pickaxe", 1),
)

LOGS = ("oak_log", "birch_log", "spruce_log")
PLANKS = ("oak_planks", "birch_planks", "spruce_planks")
#: block/item families the body accepts as a target ("log" = any ``*_log``)
FAMILIES: frozenset[str] = frozenset({"log", "planks", "ore"})


@dataclass(frozen=True)
class Recipe:
    result: str
    count: int
    needs: dict[str, int]
    table: bool = False


RECIPES: dict[str, Recipe] = {
    "oak_planks": Recipe("oak_planks", 4, {"oak_log": 1}),
    "birch_planks": Recipe("birch_planks", 4, {"birch_log": 1}),
    "spruce_planks": Recipe("spruce_planks", 4, {"spruce_log": 1}),
    "stick": Recipe("stick", 4, {"planks": 2}),
    "crafting_table": Recipe("crafting_table", 1, {"planks": 4}),
    "wooden_pickaxe": Recipe("wooden_pickaxe", 1, {"planks": 3, "stick": 2}, table=True),
    "wooden_axe": Recipe("wooden_axe", 1, {"planks": 3, "stick": 2}, table=True),
    "wooden_sword": Recipe("wooden_sword", 1, {"planks": 2, "stick": 1}, table=True),
    "stone_pickaxe": Recipe("stone_pickaxe", 1, {"cobblestone": 3, "stick": 2}, table=True),
    "stone_axe": Recipe("stone_axe", 1, {"cobblestone": 3, "stick": 2}, table=True),
    "stone_sword": Recipe("stone_sword", 1, {"cobblestone": 2, "stick": 1}, table=True),
    "furnace": Recipe("furnace", 1, {"cobblestone": 8}, table=True),
    "chest": Recipe("chest", 1, {"planks": 8}, table=True),
    "iron_pickaxe": Recipe("iron_pickaxe", 1, {"iron_ingot": 3, "stick": 2}, table=True),
    "iron_sword": Recipe("iron_sword", 1, {"iron_ingot": 2, "stick": 1}, table=True),
    "bread": Recipe("bread", 1, {"wheat": 3}, table=True),
    "torch": Recipe("torch", 4, {"coal": 1, "stick": 1}),
}

SMELTING: dict[str, str] = {
    "iron_ore": "iron_ingot",
    "gold_ore": "gold_ingot",
    "sand": "glass",
    "beef": "cooked_beef",
    "porkchop": "cooked_porkchop",
    "chicken": "cooked_chicken",
    "oak_log": "charcoal",
    "potato": "baked_potato",
}


@functools.cache
def counts_as(item: str) -> tuple[str, ...]:
    """``item``, and where ``item`` is what digging the block of that name gives (:data:`DROPS`),
    what that block gives instead at a Minecraft version the runtime serves, from
    minecraft-data: an ore that drops itself up to 1.16 drops raw metal from 1.17 (``iron_ore``
    -> ``iron_ore``, ``raw_iron``). A wheat block gives wheat at every version: only itself.
    Without minecraft-data (no ``make setup``), only ``item``."""
    if DROPS.get(item) != item:
        return (item,)
    names = [item]
    for version in SUPPORTED_VERSIONS:
        try:
            drops = mc_names.drops_of(version, item)
        except (OSError, ValueError) as err:  # not installed, or no such block there
            log.debug("no drops of %s at %s: %s", item, version, err)
            continue
        if item not in drops:
            names += drops
    return tuple(dict.fromkeys(names))


#: smelting the raw metal an ore drops from 1.17 gives what smelting the ore gives
SMELTING.update(
    {raw: out for ore, out in list(SMELTING.items()) for raw in counts_as(ore) if raw != ore}
)

FOODS = (
    "bread",
    "cooked_beef",
    "cooked_porkchop",
    "cooked_chicken",
    "baked_potato",
    "apple",
    "carrot",
    "beef",
    "porkchop",
    "chicken",
    "potato",
)


def count_of(inventory: dict[str, int], name: str) -> int:
    """Inventory count, where "planks"/"log" stand for any wood type."""
    if name == "planks":
        return sum(inventory.get(p, 0) for p in PLANKS)
    if name == "log":
        return sum(inventory.get(p, 0) for p in LOGS)
    return inventory.get(name, 0)


def best_pickaxe_tier(inventory: dict[str, int]) -> int:
    for name, tier in PICKAXES:
        if inventory.get(name, 0) > 0:
            return tier
    return 0


def planks_for(inventory: dict[str, int]) -> str:
    for log, plank in zip(LOGS, PLANKS, strict=True):
        if inventory.get(log, 0) > 0 or inventory.get(plank, 0) > 0:
            return plank
    return "oak_planks"


def expected_gain(skill: str, args: dict[str, object]) -> dict[str, int]:
    """What a skill should change in the inventory if it succeeds (for action awareness)."""
    count = int(str(args.get("count", 1)))
    if skill == "collect":
        block = str(args.get("block", ""))
        return {DROPS.get(block, block): count}  # or what counts as it (:func:`counts_as`)
    if skill == "craft":
        item = str(args.get("item", ""))
        recipe = RECIPES.get(item)
        per = recipe.count if recipe else 1
        return {item: -(-count // per) * per}  # the body makes whole crafts of ``count`` items
    if skill == "smelt":
        item = str(args.get("item", ""))
        return {SMELTING.get(item, item): count, item: -count}
    if skill in ("deposit", "give"):
        return {str(args.get("item", "")): -count}
    if skill == "withdraw":
        return {str(args.get("item", "")): count}
    if skill == "eat":
        eaten = args.get("item")
        return {str(eaten): -1} if eaten else {}
    return {}


# --- activities ---------------------------------------------------------------------

#: goal kind -> (description template, role it suggests)
ACTIVITIES: dict[str, tuple[str, str]] = {
    "gather_wood": ("gather wood from the forest for the village", "lumberjack"),
    "mine": ("mine stone and ore in the hills", "miner"),
    "farm": ("tend the farm and harvest crops", "farmer"),
    "craft_tools": ("craft tools for the village", "engineer"),
    "smelt": ("smelt ore into ingots", "blacksmith"),
    "build": ("gather materials to build and improve the village", "builder"),
    "explore": ("explore the surroundings and report what is out there", "explorer"),
    "guard": ("watch over the village and keep others safe", "guard"),
    "socialize": ("talk with villagers and keep the community together", "socialite"),
    "trade": ("share resources with villagers who need them", "trader"),
    "art": ("collect beautiful materials for decorations", "artist"),
}

#: words in a community goal or traits that favour certain activities
KEYWORDS: dict[str, tuple[str, ...]] = {
    "gather_wood": ("wood", "build", "forest", "efficient"),
    "mine": ("mine", "stone", "tech", "advanced", "ore", "military", "defen"),
    "farm": ("food", "survive", "farm", "feed"),
    "craft_tools": ("tech", "tool", "advanced", "efficient", "engineer"),
    "smelt": ("iron", "tech", "advanced", "weapon", "military"),
    "build": ("build", "architecture", "village"),
    "explore": ("explore", "curious", "scout", "discover"),
    "guard": ("military", "defen", "protect", "safe", "strong"),
    "socialize": ("together", "community", "outgoing", "culture", "conversation"),
    "trade": ("generous", "share", "help"),
    "art": ("art", "culture", "beauty", "decorat", "curat"),
}
