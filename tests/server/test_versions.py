"""Every supported Minecraft version on the embedded server: a plain mineflayer bot (our
test driver, nothing of the runtime) joins, collects, crafts, smelts and deposits; a second
player is an entity it sees, and a /tp keeps both connected.

Block and item names come from minecraft-data for the version (the driver's ``drops_of``):
iron ore drops raw iron from 1.17 on. To stay short, the stone and the iron ore are set next
to the bot with /setblock; the bot still mines them by hand with the tools it crafted."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from agent_runtime import mc_names
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.status_ping import protocol_of
from tests.versions import SWEEP_VERSIONS

from .conftest import BotError, BotFactory, counts

pytestmark = pytest.mark.minecraft

#: the supported versions with 1.17's click protocol (state ids, no transaction packets)
STATE_IDS = tuple(v for v in SWEEP_VERSIONS if protocol_of(v) >= protocol_of("1.17"))


@pytest.mark.timeout(90)
@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_join_see_each_other_chat_and_teleport(
    mc_version: str, server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    """Two plain mineflayer bots join, each sees the other as a player entity (flying-squid
    sent type 0 at 1.20.2+), hear each other's chat, and a teleport keeps the connection
    (flying-squid's position packet dropped the client at 1.21.4)."""
    a = await make_bot("alpha")
    b = await make_bot("bravo")
    for bot, other in ((a, "bravo"), (b, "alpha")):
        seen = await bot.call("player_entity", name=other)
        assert seen is not None and seen["name"] == "player", (mc_version, seen)
    await a.call("chat", message="hello from alpha")
    heard = await b.wait_event("chat", within=10, predicate=lambda e: e["username"] == "alpha")
    assert heard["message"] == "hello from alpha"
    hall = server.places["town_hall"]
    await admin.teleport("alpha", hall.x + 0.5, hall.y + 1, hall.z + 0.5)
    landed = await a.call("landed", x=hall.x + 0.5, z=hall.z + 0.5, ms=10000)
    assert landed is not None
    assert await b.call("players") == ["alpha", "bravo"]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_a_player_teleported_in_sight_is_seen_where_it_landed(
    mc_version: str, admin: AdminClient, make_bot: BotFactory
) -> None:
    """A teleport of more than 8 blocks within another player's sight reaches that player as
    the new position, and both stay connected. At 1.21.4 flying-squid wrote the move in the
    1.16 shape of ``entity_teleport``: the write threw, watchers were dropped (agents placed by
    /tp at an experiment's start) and here the teleported bot was not seen standing where it
    landed within 10 s."""
    a = await make_bot("alpha")
    b = await make_bot("bravo")
    x, y, z = (math.floor(v) for v in await admin.position("bravo"))
    await admin.teleport("alpha", x + 12.5, y + 1, z + 0.5)  # a block's centre
    await a.call("landed", x=x + 12.5, z=z + 0.5, ms=10000)
    ax, _, az = await admin.position("alpha")
    await b.call("player_near", name="alpha", x=ax, z=az, ms=10000)
    assert await b.call("players") == ["alpha", "bravo"]
    assert not [e for e in a.events + b.events if e.get("event") in ("end", "kicked")]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mc_version", STATE_IDS)
async def test_clicks_are_answered_as_a_vanilla_server_does(
    mc_version: str, server: EmbeddedServer, make_bot: BotFactory
) -> None:
    """1.17+ (state ids, no transaction packets): a click whose state id is not the last one
    sent is applied, then answered with the whole window, cursor included; a click with the
    last state id is answered with the slots where the server differs from what the click says
    the client shows now. (mineflayer clicks again before an answer arrives, on its own
    prediction: answers computed from anything else left its inventory wrong at 1.21.4.)"""
    bot = await make_bot("clicker", oak_log=3)
    slot = await bot.call("slot_of", item="oak_log")
    got = await bot.call(
        "raw_click", slot=slot, staleId=True, changed=[[slot, None, 0]], cursor=["oak_log", 3]
    )
    assert got["packet"] == "window_items" and got["windowId"] == 0, got
    assert got["carried"] == ["oak_log", 3] and str(slot) not in got["items"], got
    # a left click on an empty slot puts the 3 logs held there; the client claims 2 (and 1 held)
    got = await bot.call("raw_click", slot=20, changed=[[20, "oak_log", 2]], cursor=["oak_log", 1])
    assert got == {"packet": "set_slot", "windowId": 0, "slot": 20, "item": ["oak_log", 3]}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_a_dropped_item_reaches_the_client_with_its_stack(
    mc_version: str, server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    """A block dug 3 blocks away drops an item the client sees as that item (flying-squid
    sends no entity metadata from 1.20.2: the drop arrived without its stack, mineflayer never
    emitted an itemDrop and a vanilla client shows nothing)."""
    assert server.options.version == mc_version
    bot = await make_bot("digger")
    x, y, z = (math.floor(v) for v in (await bot.call("position")).values())
    await admin.command(f"/setblock {x + 3} {y} {z} dirt")
    await bot.call("wait_block", x=x + 3, y=y, z=z, name="dirt")
    dug = await bot.call("dig_from_here", x=x + 3, y=y, z=z)
    assert dug["finished"] and dug["blockNow"] == "air", dug
    assert await bot.call("wait_item_entity", name="dirt", range=6) == "dirt"


@pytest.mark.timeout(150)
@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_join_collect_craft_smelt_deposit(
    mc_version: str, server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    assert server.options.version == mc_version
    t0 = time.monotonic()
    bot = await make_bot("climber")
    other = await make_bot("watcher")

    async def step(action: str, within: float = 60, **args: Any) -> dict[str, Any]:
        try:
            result = await bot.call(action, within=within, **args)
        except BotError as err:  # what the server holds beside what the bot saw
            held = counts(await admin.inventory("climber"))
            raise BotError(f"{err}; the server's inventory of climber: {held}") from err
        assert isinstance(result, dict)
        return result

    # the other player is an entity each bot sees (flying-squid sent type 0 at 1.20+)
    seen = await bot.call("player_entity", name="watcher")
    assert seen is not None and seen["name"] == "player", seen
    seen = await other.call("player_entity", name="climber")
    assert seen is not None and seen["name"] == "player", seen

    # logs, planks, table, sticks, wooden pickaxe
    inv = counts((await step("collect", block="oak_log", count=3))["inventory"])
    assert inv.get("oak_log", 0) >= 3
    inv = counts((await step("craft", item="oak_planks", count=3))["inventory"])
    assert inv["oak_planks"] >= 12
    inv = counts((await step("craft", item="crafting_table"))["inventory"])
    assert inv["crafting_table"] == 1
    inv = counts((await step("craft", item="stick"))["inventory"])
    assert inv["stick"] == 4
    await step("place_near", item="crafting_table")
    inv = counts((await step("craft", item="wooden_pickaxe", table=True))["inventory"])
    assert inv["wooden_pickaxe"] == 1

    # stone and iron ore set around the bot, mined by hand with the crafted tools
    at = await bot.call("position")
    x, y, z = int(at["x"] // 1), int(at["y"] // 1), int(at["z"] // 1)
    row = await _free_spots(bot, x, y, z, 12)
    for i, (bx, by, bz) in enumerate(row):
        block = "iron_ore" if i == len(row) - 1 else "stone"
        await admin.command(f"/setblock {bx} {by} {bz} {block}")
    ix, iy, iz = row[-1]
    await bot.call("wait_block", x=ix, y=iy, z=iz, name="iron_ore")
    inv = counts((await step("collect", block="stone", count=3, maxDistance=16))["inventory"])
    assert inv.get("cobblestone", 0) >= 3
    inv = counts((await step("craft", item="stone_pickaxe", table=True))["inventory"])
    assert inv["stone_pickaxe"] == 1
    need = 8 - inv.get("cobblestone", 0)
    inv = counts((await step("collect", block="stone", count=need, maxDistance=16))["inventory"])
    assert inv["cobblestone"] >= 8
    inv = counts((await step("craft", item="furnace", table=True))["inventory"])
    assert inv["furnace"] == 1
    furnace = (await step("place_near", item="furnace"))["position"]
    (ore,) = await bot.call("drops_of", block="iron_ore")
    assert (ore,) == mc_names.drops_of(mc_version, "iron_ore")  # raw_iron from 1.17
    inv = counts((await step("collect", block="iron_ore", count=1, maxDistance=16))["inventory"])
    assert inv[ore] == 1
    res = await step(
        "smelt", x=furnace["x"], y=furnace["y"], z=furnace["z"], input=ore, fuel="oak_planks"
    )
    assert res["output"] == "iron_ingot" and counts(res["inventory"])["iron_ingot"] == 1
    assert counts(await admin.inventory("climber")) == counts(res["inventory"])

    # deposit into a community chest of the town hall
    chest = server.community_chests[0]
    res = await step(
        "chest_deposit", x=chest[0], y=chest[1], z=chest[2], item="iron_ingot", count=1
    )
    assert counts(res["chest"]) == {"iron_ingot": 1}
    assert counts(await admin.chest(*chest)) == {"iron_ingot": 1}

    # a teleport keeps the connection, and the other bot sees where the player went
    hall = server.places["town_hall"]
    await admin.teleport("climber", hall.x + 0.5, hall.y + 1, hall.z + 0.5)
    landed = await bot.call("landed", x=hall.x + 0.5, z=hall.z + 0.5, ms=10000)
    assert landed is not None
    assert await bot.call("players") == ["climber", "watcher"]
    print(f"{mc_version}: {time.monotonic() - t0:.1f}s")


async def _free_spots(bot: Any, x: int, y: int, z: int, n: int) -> list[tuple[int, int, int]]:
    """``n`` spots 2-4 columns around the bot (nearest first), each air over solid ground (a
    stone set over a hole dropped its cobblestone out of reach), at the bot's feet level or one
    or two below it (the bot may stand on the crafting table it placed: CI run of 253e3c4)."""
    ring = sorted(
        (
            (x + dx, z + dz)
            for dx in range(-4, 5)
            for dz in range(-4, 5)
            if max(abs(dx), abs(dz)) >= 2
        ),
        key=lambda c: (c[0] - x) ** 2 + (c[1] - z) ** 2,
    )
    free = []
    for cx, cz in ring:
        for fy in (y, y - 1, y - 2):
            if await bot.call("block_at", x=cx, y=fy, z=cz) != "air":
                break  # solid at this level: no spot above the ground here
            if await bot.call("block_at", x=cx, y=fy - 1, z=cz) not in ("air", "water", "lava"):
                free.append((cx, fy, cz))
                break
    if len(free) < n:
        pytest.fail(f"only {len(free)} free spots around {x} {y} {z}")
    return free[:n]
