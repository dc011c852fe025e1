"""Heuristic step selection: the tech tree from what the agent holds and sees, and the
recovery from a failure the body described (missing ingredient, fuel, station)."""

from __future__ import annotations

from modules.heuristics.recovery import missing_station, missing_step
from modules.knowledge import expected_gain
from modules.techtree import craft_step, explore_step, next_step, smelt_step

TABLE = {"crafting_table": 2.0}


def test_an_ingredient_held_short_of_the_recipe_is_made_not_asked_for_again() -> None:
    """One stick held, two needed: the next step makes sticks (from planks, from logs); it
    is not "craft stick" with no planks, which the body refuses again and again."""
    inv = {"cobblestone": 3, "stick": 1, "wooden_pickaxe": 1}
    step = craft_step("stone_pickaxe", inv, TABLE)
    assert step is not None and step.call.skill == "collect" and step.call.args["block"] == "log"
    step = craft_step("stone_pickaxe", {**inv, "birch_log": 1}, TABLE)
    assert step is not None and step.call.args == {"item": "birch_planks", "count": 1}
    step = craft_step("stone_pickaxe", {**inv, "oak_planks": 2}, TABLE)
    assert step is not None and step.call.args == {"item": "stick", "count": 1}


def test_planks_come_from_the_log_kind_held() -> None:
    step = craft_step("crafting_table", {"oak_planks": 1, "spruce_log": 2}, {})
    assert step is not None and step.call.args == {"item": "spruce_planks", "count": 1}


def test_a_craft_is_expected_to_make_whole_crafts_of_count_items() -> None:
    """As the body crafts (count = items): 2 planks is one craft of 4, not 8 planks."""
    assert expected_gain("craft", {"item": "oak_planks", "count": 2}) == {"oak_planks": 4}
    assert expected_gain("craft", {"item": "stick", "count": 1}) == {"stick": 4}
    assert expected_gain("craft", {"item": "stick", "count": 5}) == {"stick": 8}
    assert expected_gain("craft", {"item": "wooden_pickaxe", "count": 1}) == {"wooden_pickaxe": 1}


def test_gathering_wood_does_not_turn_every_log_into_planks() -> None:
    many = {"oak_log": 12, "oak_planks": 8}
    assert next_step("gather_wood", many, {"oak_log": 3.0}).call.skill == "collect"
    few = {"oak_log": 12}
    assert next_step("gather_wood", few, {}).call.args == {"item": "oak_planks", "count": 1}


def test_an_explorer_climbs_the_tech_tree_from_what_it_holds_and_sees() -> None:
    def step(inv: dict[str, int], seen: dict[str, float] | None = None) -> tuple[str, object]:
        call = explore_step(inv, seen or {}).call
        return call.skill, call.args.get("item") or call.args.get("block")

    assert step({}) == ("collect", "log")  # nothing held or seen: wood first, any log
    assert step({}, {"birch_log": 5.0}) == ("collect", "birch_log")
    assert step({"oak_log": 2}) == ("craft", "oak_planks")
    assert step({"oak_planks": 4}) == ("craft", "crafting_table")
    assert step({"oak_planks": 4, "crafting_table": 1}) == ("craft", "stick")
    wooden = {"wooden_pickaxe": 1, "stick": 2, "oak_planks": 1, "crafting_table": 1}
    assert step(wooden) == ("collect", "stone")  # stone is dug, though never a notable block
    assert step(wooden, {"coal_ore": 6.0}) == ("collect", "coal_ore")  # a new kind in sight
    assert step(wooden, {"iron_ore": 6.0}) == ("collect", "stone")  # iron needs stone tools
    left_behind = {k: v for k, v in wooden.items() if k != "crafting_table"}
    assert step(left_behind) == ("collect", "log")  # planks for a new table first
    stone = {"stone_pickaxe": 1, "wooden_pickaxe": 1, "cobblestone": 8, "crafting_table": 1}
    assert step(stone, TABLE) == ("craft", "furnace")
    furnace = {"stone_pickaxe": 1, "furnace": 1, "coal": 2}
    assert step(furnace, {"iron_ore": 6.0}) == ("collect", "iron_ore")
    assert step({**furnace, "iron_ore": 3}) == ("smelt", "iron_ore")
    assert step({"stone_pickaxe": 1, "furnace": 1, "iron_ore": 3}) == ("collect", "log")  # fuel
    # a new kind it can craft from what it holds, when the next rung needs the world
    assert step({**wooden, "oak_planks": 3}) == ("craft", "wooden_axe")
    top = {"iron_pickaxe": 1, "stick": 1, "coal": 1}
    assert step(top) == ("craft", "torch")
    assert step({"iron_pickaxe": 1, "torch": 4}) == ("explore", None)  # nothing to do here


def test_a_smelt_asks_for_no_more_than_the_fuel_the_body_burns_allows() -> None:
    """The body burns one fuel, its best (smelt.js): one plank of each kind smelts one."""
    ore = {"iron_ore": 3, "furnace": 1}
    two_kinds = explore_step({**ore, "oak_planks": 1, "birch_planks": 1}, {}).call
    assert two_kinds.args == {"item": "iron_ore", "count": 1}
    assert explore_step({**ore, "coal": 1}, {}).call.args == {"item": "iron_ore", "count": 3}


def test_recovery_reads_what_the_body_said_was_missing() -> None:
    step = missing_step("missing ingredients: 1 oak_planks", {"oak_planks": 1, "birch_log": 1}, {})
    assert step is not None and step.call.args == {"item": "birch_planks", "count": 1}
    step = missing_step("missing ingredients: 2 oak_planks, 1 stick", {}, {"spruce_log": 4.0})
    assert step is not None and step.call.args["block"] == "spruce_log"
    step = missing_step("missing ingredients: 5 cobblestone", {"wooden_pickaxe": 1}, {})
    assert step is not None and step.call.args == {"block": "stone", "count": 6}
    step = missing_step("missing fuel: 1 oak_planks", {"wooden_pickaxe": 1}, {"coal_ore": 3.0})
    assert step is not None and step.call.args["block"] == "coal_ore"
    assert missing_step("no path to oak_log: 6 candidates out of reach", {}, {}) is None
    no_table = "no crafting table within 16 blocks (and none in inventory)"
    step = missing_station(no_table, {"oak_planks": 4}, {})
    assert step is not None and step.call.args == {"item": "crafting_table", "count": 1}
    assert missing_station("no oak_log in sight within 64 blocks", {}, {}) is None


def test_a_station_seen_beyond_the_skills_reach_does_not_serve() -> None:
    """A furnace or table seen 40 blocks away is out of the craft/smelt skills' 32-block
    reach: the explorer makes one (it asked to smelt at a far furnace four times in a row)."""
    inv = {"iron_ore": 1, "coal": 2, "cobblestone": 8, "crafting_table": 1}
    far = smelt_step("iron_ore", inv, {"furnace": 40.0})
    assert far.call.skill == "craft" and far.call.args["item"] == "furnace"
    near = smelt_step("iron_ore", inv, {"furnace": 10.0})
    assert near.call.skill == "smelt"
    tools = {"oak_planks": 7, "stick": 2}
    far_table = craft_step("wooden_pickaxe", tools, {"crafting_table": 45.0})
    assert far_table is not None and far_table.call.args["item"] == "crafting_table"
    near_table = craft_step("wooden_pickaxe", tools, {"crafting_table": 5.0})
    assert near_table is not None and near_table.call.args["item"] == "wooden_pickaxe"


def test_the_smelt_goal_finds_a_furnace_before_it_smelts() -> None:
    """An agent with an iron pickaxe who walked away from its furnace: its smelt goal makes a
    furnace first (item progression: 64 smelts failed "no furnace within 32 blocks", the
    smelt goal's step asked to smelt wherever the agent stood)."""
    inv = {"iron_ore": 2, "coal": 3, "cobblestone": 8, "iron_pickaxe": 1, "crafting_table": 1}
    away = next_step("smelt", inv, {})
    assert away.call.skill == "craft" and away.call.args["item"] == "furnace"
    there = next_step("smelt", inv, {"furnace": 6.0})
    assert there.call.skill == "smelt" and there.call.args["item"] == "iron_ore"


def test_raw_iron_held_is_iron_to_smelt() -> None:
    """From Minecraft 1.17 iron ore drops raw iron: an agent holding it smelts it on every
    path to an iron ingot (the explorer's climb, a recipe's need, the smelt goal), from its
    own inventory alone (it had collected iron ore again and again, never smelting)."""
    furnace = {"stone_pickaxe": 1, "furnace": 1, "coal": 2}
    step = explore_step({**furnace, "raw_iron": 3}, {"iron_ore": 6.0}).call
    assert step.skill == "smelt" and step.args == {"item": "raw_iron", "count": 3}
    tools = {**furnace, "raw_iron": 2, "stick": 2, "crafting_table": 1}
    step = craft_step("iron_pickaxe", tools, {}).call  # type: ignore[union-attr]
    assert step.skill == "smelt" and step.args == {"item": "raw_iron", "count": 2}
    step = next_step("smelt", {**tools, "raw_iron": 1}, {}).call
    assert step.skill == "smelt" and step.args == {"item": "raw_iron", "count": 1}
    assert expected_gain("smelt", {"item": "raw_iron", "count": 2}) == {
        "iron_ingot": 2,
        "raw_iron": -2,
    }
    # without iron held, the smelt goal still digs for it (the ore block keeps its name)
    assert next_step("smelt", furnace, {"iron_ore": 4.0}).call.args["block"] == "iron_ore"
