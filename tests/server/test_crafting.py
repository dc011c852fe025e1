"""Crafting through the real click protocol: mineflayer's bot.craft in the 2x2 grid and
on a crafting table, for shapeless and shaped recipes; results and ingredients exact."""

from __future__ import annotations

import pytest

from bots.admin import AdminClient

from .conftest import BotFactory, JsBot, counts

pytestmark = pytest.mark.minecraft


async def craft(bot: JsBot, item: str, count: int = 1, *, table: bool = False) -> dict[str, int]:
    """Craft ``item`` ``count`` times; what the bot holds after."""
    res = await bot.call("craft", item=item, count=count, table=table)
    return counts(res["inventory"])


async def test_inventory_grid_shapeless_and_shaped(
    admin: AdminClient, make_bot: BotFactory
) -> None:
    bot = await make_bot("grid", birch_log=2)

    # shapeless, 1 ingredient: log -> 4 planks, twice
    assert await craft(bot, "birch_planks", 2) == {"birch_planks": 8}
    # shaped 2x1: 2 planks -> 4 sticks
    assert await craft(bot, "stick") == {"birch_planks": 6, "stick": 4}
    # shaped 2x2: 4 planks -> crafting table
    assert await craft(bot, "crafting_table") == {
        "birch_planks": 2,
        "stick": 4,
        "crafting_table": 1,
    }
    # the server agrees, and nothing is left in the grid or on the cursor
    assert counts(await admin.inventory("grid")) == {
        "birch_planks": 2,
        "stick": 4,
        "crafting_table": 1,
    }


async def test_shapeless_two_ingredients(admin: AdminClient, make_bot: BotFactory) -> None:
    bot = await make_bot("flinty", iron_ingot=3, flint=2)
    assert await craft(bot, "flint_and_steel", 2) == {"iron_ingot": 1, "flint_and_steel": 2}
    assert counts(await admin.inventory("flinty")) == {"iron_ingot": 1, "flint_and_steel": 2}


async def test_crafting_table_3x3(admin: AdminClient, make_bot: BotFactory) -> None:
    bot = await make_bot("smith", crafting_table=1, cobblestone=20, stick=6, oak_planks=3)
    await bot.call("place_near", item="crafting_table")
    # shaped 3x3 with gaps: pickaxes
    held = await craft(bot, "stone_pickaxe", 2, table=True)
    assert held == {"cobblestone": 14, "stick": 2, "oak_planks": 3, "stone_pickaxe": 2}
    held = await craft(bot, "wooden_pickaxe", table=True)
    assert held == {"cobblestone": 14, "stone_pickaxe": 2, "wooden_pickaxe": 1}
    # full 3x3 ring: furnace
    held = await craft(bot, "furnace", table=True)
    assert held == {"cobblestone": 6, "stone_pickaxe": 2, "wooden_pickaxe": 1, "furnace": 1}
    assert counts(await admin.inventory("smith")) == held


async def test_missing_ingredients_craft_nothing(admin: AdminClient, make_bot: BotFactory) -> None:
    bot = await make_bot("poor", oak_planks=1)
    with pytest.raises(Exception, match="no recipe"):
        await bot.call("craft", item="stick")
    assert counts(await admin.inventory("poor")) == {"oak_planks": 1}


async def test_shift_click_result_crafts_all(admin: AdminClient, make_bot: BotFactory) -> None:
    """Raw clicks: logs into the 2x2 grid, shift-click the result: every log becomes planks."""
    bot = await make_bot("shifter", spruce_log=5)
    src = await bot.call("slot_of", item="spruce_log")
    # pick the stack up, put it in grid slot 1, shift-click the result slot
    await bot.call("clicks", clicks=[[src, 0, 0], [1, 0, 0], [0, 0, 1]])
    assert await bot.call("wait_count", item="spruce_planks", atLeast=20) == 20
    res = await bot.call("clicks", clicks=[])
    assert counts(await admin.inventory("shifter")) == {"spruce_planks": 20}
    assert counts(await bot.call("inventory")) == {"spruce_planks": 20}
    assert res["grid"] == [None, None, None, None]


async def test_mixed_planks_make_a_table(admin: AdminClient, make_bot: BotFactory) -> None:
    """Vanilla takes any planks, mixed, where a recipe wants planks (minecraft-data lists the
    table once per kind): 2 oak + 2 birch planks in the 2x2 grid make a crafting table."""
    bot = await make_bot("mixer", oak_planks=2, birch_planks=2)
    oak = await bot.call("slot_of", item="oak_planks")
    birch = await bot.call("slot_of", item="birch_planks")
    # one plank per grid slot (right clicks), then the result onto an empty slot
    await bot.call(
        "clicks",
        clicks=[[oak, 0, 0], [1, 1, 0], [2, 1, 0], [birch, 0, 0], [3, 1, 0], [4, 1, 0]],
    )
    # the result as the client shows it (clicked before it arrived, vanilla rejects the click)
    assert await bot.call("wait_slot", slot=0, name="crafting_table") == "crafting_table"
    await bot.call("clicks", clicks=[[0, 0, 0], [oak, 0, 0]])
    assert await bot.call("wait_count", item="crafting_table", atLeast=1) == 1
    assert counts(await admin.inventory("mixer")) == {"crafting_table": 1}
