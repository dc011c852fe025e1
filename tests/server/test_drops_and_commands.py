"""Drops with and without the right tool, exact pickup counts, /give with counts, /tell."""

from __future__ import annotations

import pytest

from agent_runtime import mc_names
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer

from .conftest import BotFactory, counts, run_js

pytestmark = pytest.mark.minecraft


async def put_block(admin: AdminClient, x: int, y: int, z: int, block: str) -> None:
    await admin.command(f"/setblock {x} {y} {z} {block}")


def drop(server: EmbeddedServer, block: str) -> str:
    """What ``block`` drops at the server's version (minecraft-data: iron ore drops
    ``iron_ore`` at 1.16.5, ``raw_iron`` from 1.17)."""
    (item,) = mc_names.drops_of(server.options.version, block)
    return item


@pytest.mark.parametrize(
    ("block", "tool"),
    [
        ("stone", "wooden_pickaxe"),  # cobblestone
        ("coal_ore", "wooden_pickaxe"),  # coal
        ("iron_ore", "stone_pickaxe"),  # iron_ore, raw_iron from 1.17
        ("diamond_ore", "iron_pickaxe"),  # diamond
        ("oak_log", None),
        ("grass_block", None),  # dirt
    ],
)
async def test_block_drops_with_right_tool(
    server: EmbeddedServer,
    admin: AdminClient,
    make_bot: BotFactory,
    block: str,
    tool: str | None,
) -> None:
    expected = drop(server, block)
    bot = await make_bot("digger")
    x, y, z = 6, server.spawn[1], 6
    await put_block(admin, x, y, z, block)
    if tool:
        await admin.command(f"/give digger {tool} 1")
        await bot.call("wait_count", item=tool, atLeast=1)
    res = await bot.call("dig_at", x=x, y=y, z=z, tool=tool, name=block)
    assert res["name"] == block and res["blockNow"] == "air"
    res = await bot.call("pickup", x=x, y=y, z=z, item=expected, atLeast=1)
    inv = counts(res["inventory"])
    assert inv[expected] == 1
    assert counts(await admin.inventory("digger")) == inv


@pytest.mark.parametrize(
    ("block", "wrong_tool", "tool"),
    [
        ("stone", None, "wooden_pickaxe"),
        ("iron_ore", "wooden_pickaxe", "stone_pickaxe"),
        ("diamond_ore", "stone_pickaxe", "iron_pickaxe"),
    ],
)
async def test_no_drop_without_the_tool(
    server: EmbeddedServer,
    admin: AdminClient,
    make_bot: BotFactory,
    block: str,
    wrong_tool: str | None,
    tool: str,
) -> None:
    expected = drop(server, block)
    bot = await make_bot("bare")
    y = server.spawn[1]
    await put_block(admin, 6, y, 6, block)
    await put_block(admin, 6, y, 12, block)
    for t in (wrong_tool, tool):
        if t:
            await admin.command(f"/give bare {t} 1")
            await bot.call("wait_count", item=t, atLeast=1)
    await bot.call("dig_at", x=6, y=y, z=6, tool=wrong_tool, name=block)
    # control: the same block with the right tool drops (its drop is spawned
    # after any drop of the first block would have been)
    await bot.call("dig_at", x=6, y=y, z=12, tool=tool, name=block)
    res = await bot.call("pickup", x=6, y=y, z=12, item=expected, atLeast=1)
    assert counts(res["inventory"])[expected] == 1
    assert await admin.entities(near=(6.5, y, 6.5), radius=4) == []
    assert counts(await admin.inventory("bare")).get(expected) == 1


def test_random_drops_statistics() -> None:
    """Leaves and grass drop sometimes, with vanilla-like rates (JS unit check)."""
    stats = run_js("drops_stats.js")
    n = stats["n"]
    leaves = stats["oak_leaves"]
    assert 0.03 < leaves.get("oak_sapling", 0) / n < 0.07
    assert 0.01 < leaves.get("stick", 0) / n < 0.06
    assert leaves.get("oak_leaves", 0) == 0  # only with shears
    grass = stats["grass"]
    assert 0.09 < grass.get("wheat_seeds", 0) / n < 0.16
    assert stats["wheat_ripe"].get("wheat", 0) == n
    assert stats["stone_by_hand"] == {}


async def test_give_counts_and_stacks(admin: AdminClient, make_bot: BotFactory) -> None:
    bot = await make_bot("giftee")
    assert "Gave 16" in (await admin.command("/give giftee stone 16") or "")
    assert "Gave 1" in (await admin.command("/give giftee minecraft:stone") or "")
    await admin.command("/give giftee stone 50")
    assert await bot.call("wait_count", item="stone", atLeast=67) == 67
    inv = await admin.inventory("giftee")
    assert sorted(i["count"] for i in inv if i["name"] == "stone") == [3, 64]
    with pytest.raises(Exception, match="whole number"):
        await admin.command("/give giftee stone lots")
    with pytest.raises(Exception, match="Unknown item"):
        await admin.command("/give giftee not_an_item 2")
    # a pickup on top of a given stack keeps the connection alive and counts right
    await admin.command("/setblock 6 65 7 cobblestone")
    await admin.command("/give giftee wooden_pickaxe 1")
    await admin.command("/give giftee cobblestone 5")
    await bot.call("wait_count", item="cobblestone", atLeast=5)
    await bot.call("dig_at", x=6, y=65, z=7, tool="wooden_pickaxe", name="cobblestone")
    res = await bot.call("pickup", x=6, y=65, z=7, item="cobblestone", atLeast=6)
    assert counts(res["inventory"])["cobblestone"] == 6


async def test_tell_is_a_whisper(admin: AdminClient, make_bot: BotFactory) -> None:
    alice = await make_bot("alice")
    bob = await make_bot("bob")
    await alice.call("chat", message="/tell bob meet me at the farm")
    event = await bob.wait_event("whisper", within=10)
    assert event["username"] == "alice" and event["message"] == "meet me at the farm"
    await admin.command("/tell alice hello from the server")
    event = await alice.wait_event(
        "whisper", within=10, predicate=lambda e: "server" in e["message"]
    )
    assert event["username"] == "Server"
