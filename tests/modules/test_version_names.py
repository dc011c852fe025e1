"""The heuristics' block and item names at every supported Minecraft version (issue 34).

What digging a block gives is read from minecraft-data (``agent_runtime/mc_names.py``): an iron ore
gives ``iron_ore`` at 1.16.5 and ``raw_iron`` from 1.17. The agent counts whichever its own
inventory shows, with no version in its view; every name the heuristics use exists at every
supported version, or is what an ore gives instead at some of them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_runtime import mc_names
from agent_runtime.config.models import SUPPORTED_VERSIONS
from modules import knowledge, techtree
from modules.action_awareness import compare
from modules.heuristics import asked, goals
from modules.heuristics.recovery import missing_step


def test_an_ores_drop_is_read_from_minecraft_data() -> None:
    assert mc_names.drops_of("1.16.5", "iron_ore") == ("iron_ore",)
    assert mc_names.drops_of("1.21.4", "iron_ore") == ("raw_iron",)
    assert mc_names.drops_of("1.21.4", "stone") == ("cobblestone",)
    with pytest.raises(ValueError, match=r"unknown block grass at Minecraft 1\.21\.4"):
        mc_names.drops_of("1.21.4", "grass")  # short_grass from 1.20.3
    assert knowledge.counts_as("iron_ore") == ("iron_ore", "raw_iron")
    assert knowledge.counts_as("gold_ore") == ("gold_ore", "raw_gold")
    assert knowledge.counts_as("wheat") == ("wheat",)  # wheat at every version
    assert knowledge.counts_as("cobblestone") == ("cobblestone",)
    assert knowledge.SMELTING["raw_gold"] == "gold_ingot"
    assert techtree.IRON_TO_SMELT == ("iron_ore", "raw_iron")


def test_collected_raw_iron_is_the_iron_ore_expected() -> None:
    """At 1.21.4 ``collect iron_ore`` gives raw iron: as expected, no discrepancy."""
    expected = knowledge.expected_gain("collect", {"block": "iron_ore", "count": 2})
    assert compare(expected, {"raw_iron": 2}) == {}
    assert compare(expected, {"iron_ore": 2}) == {}
    assert compare(expected, {"raw_iron": 1}) == {"iron_ore": (2, 1)}
    smelt = knowledge.expected_gain("smelt", {"item": "raw_iron", "count": 1})
    assert compare(smelt, {"raw_iron": -1, "iron_ingot": 1}) == {}


def test_an_explorer_holding_raw_iron_has_that_ores_drop() -> None:
    """The explorer gathers the kinds in sight it lacks; holding raw iron it has what the iron
    ore in sight gives (at 1.21.4), so it does not dig iron ore for a new kind."""
    seen = {"iron_ore": 4.0}
    lacks = techtree._new_in_sight({"stone_pickaxe": 1}, seen)
    assert lacks is not None and lacks.call.args["block"] == "iron_ore"
    assert techtree._new_in_sight({"stone_pickaxe": 1, "raw_iron": 2}, seen) is None


def _names() -> Iterator[tuple[str, str]]:
    """(where, name) of every block and item name the heuristic tables use."""
    k = knowledge
    for block, item in k.DROPS.items():
        yield "knowledge.DROPS", block
        yield "knowledge.DROPS", item
    yield from (("knowledge.TOOL_TIER", n) for n in k.TOOL_TIER)
    yield from (("knowledge.PICKAXES", n) for n, _ in k.PICKAXES)
    yield from (("knowledge.LOGS/PLANKS/FOODS", n) for n in (*k.LOGS, *k.PLANKS, *k.FOODS))
    for item, recipe in k.RECIPES.items():
        yield "knowledge.RECIPES", item
        yield from (("knowledge.RECIPES", n) for n in recipe.needs if n not in k.FAMILIES)
    for raw, out in k.SMELTING.items():
        yield "knowledge.SMELTING", raw
        yield "knowledge.SMELTING", out
    for table, rows in (("goals.SUPPLIES", goals.SUPPLIES), ("goals.WORKS_ON", goals.WORKS_ON)):
        for names in rows.values():
            yield from ((table, n) for n in names)
    for names in asked.ITEM_ALIASES.values():
        yield from (("asked.ITEM_ALIASES", n) for n in names)
    yield from (("techtree.GATHERABLE", n) for n in techtree.GATHERABLE)
    yield from (("techtree.FUELS", n) for n in techtree.FUELS)
    yield from (("techtree.STATIONS", n) for n in techtree.STATIONS)


@pytest.mark.parametrize("mc_version", SUPPORTED_VERSIONS)
def test_every_name_the_heuristics_use_exists_at_the_version(mc_version: str) -> None:
    """A name a version lacks must be what an ore gives instead at another supported version
    (``raw_iron`` at 1.16.5); any other (a 1.16 name Mojang renamed, such as ``grass``) fails."""
    instead = {n for ore in knowledge.DROPS for n in knowledge.counts_as(ore) if n != ore}
    used = list(_names())
    assert len(used) > 80
    missing = mc_names.unknown(mc_version, (n for _, n in used))
    wrong = sorted({f"{where}: {n}" for where, n in used if n in missing and n not in instead})
    assert not wrong, f"not a block or item at Minecraft {mc_version}: {wrong}"


def test_a_newer_versions_ingredient_name_is_read_as_the_tech_tree_knows_it() -> None:
    """The body names a missing ingredient from its version's recipe list: at 1.21.4 that was
    ``pale_oak_planks`` (the heuristic then went to collect pale oak planks) or
    ``cobbled_deepslate`` for cobblestone; the recovery reads the first as planks and leaves
    the second to the plan's own step (what the tech tree uses: cobblestone)."""
    seen = {"oak_log": 5.0, "stone": 3.0}
    planks = missing_step("missing ingredients: 2 pale_oak_planks", {}, seen)
    assert planks is not None and planks.call.args == {"block": "oak_log", "count": 3}, planks
    assert missing_step("missing ingredients: 2 cobbled_deepslate", {}, seen) is None
    stone = missing_step("missing ingredients: 2 cobblestone", {"wooden_pickaxe": 1}, seen)
    assert stone is not None and stone.call.args["block"] == "stone", stone
