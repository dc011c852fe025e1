"""Admin HTTP API (loopback) and furnaces (fuel, progress over time, output by clicks)."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import pytest

from bots.admin import AdminClient, AdminError
from bots.server_host import EmbeddedServer
from tests.listeners import listening_addresses
from tests.versions import SWEEP_VERSIONS

from .conftest import BotFactory, counts

pytestmark = pytest.mark.minecraft


async def test_admin_api(server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory) -> None:
    bot = await make_bot("watched")
    health = await admin.health()
    assert health["ok"] and health["players"] == 1
    players = await admin.players()
    assert [p["username"] for p in players] == ["watched"]
    x, y, z = await admin.position("watched")
    me = await bot.call("position")
    assert abs(x - me["x"]) < 1.5 and abs(z - me["z"]) < 1.5 and abs(y - me["y"]) < 1.5
    assert await admin.inventory("watched") == []
    assert await admin.command("/give watched torch 3") == "Gave 3 [torch] to watched"
    await bot.call("wait_count", item="torch", atLeast=3)
    assert counts(await admin.inventory("watched")) == {"torch": 3}
    chest = server.community_chests[0]
    assert await admin.chest(*chest) == []
    with pytest.raises(AdminError) as err:
        await admin.chest(0, 200, 0)
    assert err.value.status == 404
    with pytest.raises(AdminError) as err:
        await admin.inventory("nobody")
    assert err.value.status == 404
    # broadcast reaches players
    await admin.broadcast("harvest festival at noon")
    await bot.wait_event(
        "message", within=10, predicate=lambda e: "harvest festival" in e["message"]
    )
    # time
    assert await admin.set_time("night") == 13000
    assert await admin.set_time(6000) == 6000
    assert 6000 <= await admin.time() < 6400
    mobs = await admin.entities()
    assert {e["name"] for e in mobs} >= {"cow", "sheep", "pig", "chicken"}
    places = await admin.places()
    assert {p["name"] for p in places["places"]} >= {
        "town_hall",
        "farm",
        "pasture",
        "forest",
        "cave",
    }
    with pytest.raises(AdminError):
        await admin.command("/no_such_command")


async def test_admin_api_is_loopback_only(server: EmbeddedServer) -> None:
    address = server.admin_address
    assert address is not None and address.startswith("http://127.0.0.1:")
    port = int(address.rsplit(":", 1)[1])
    # the kernel's own table: the port listens on loopback and nowhere else (holds on any
    # machine, also one whose only address is loopback)
    assert listening_addresses(port) == {"127.0.0.1"}
    # and, where this machine has another address, a connection there is refused
    addrs = {
        str(info[4][0])
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        if not str(info[4][0]).startswith("127.")
    }
    for addr in addrs:
        with pytest.raises(httpx.ConnectError):
            async with httpx.AsyncClient(timeout=2) as client:
                await client.get(f"http://{addr}:{port}/health")
    with pytest.raises(ValueError):
        AdminClient("http://10.0.0.1:8080")


async def test_admin_api_needs_the_run_token(server: EmbeddedServer) -> None:
    address = server.admin_address
    assert address is not None and server.admin_url is not None
    token_file = server.admin_token_file
    assert token_file.stat().st_mode & 0o777 == 0o600
    token = token_file.read_text().strip()
    assert token == server.admin_token and len(token) >= 24
    async with httpx.AsyncClient(base_url=address, timeout=5) as client:
        for headers in (
            {},
            {"Authorization": "Bearer wrong-token-wrong-token"},
            {"Authorization": token},
        ):
            r = await client.post("/command", json={"command": "/give x stone 1"}, headers=headers)
            assert r.status_code == 401, headers
        ok = await client.get("/health", headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200 and ok.json()["ok"]
    async with httpx.AsyncClient(base_url=server.admin_url, timeout=5) as basic:
        assert (await basic.get("/health")).status_code == 200  # token as the URL's password
    async with AdminClient(address) as tokenless:
        with pytest.raises(AdminError) as err:
            await tokenless.health()
        assert err.value.status == 401
    async with AdminClient(address, token=token) as client:
        assert (await client.health())["ok"]


async def test_furnace_smelts_with_fuel_over_time(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    # the fixture's furnace takes 40 ticks (2 s) per item
    bot = await make_bot("cook")
    for item, n in (
        ("iron_ore", 2),
        ("coal", 1),
        ("sand", 1),
        ("beef", 1),
        ("oak_log", 1),
        ("oak_planks", 4),
    ):
        await admin.command(f"/give cook {item} {n}")
    await bot.call("wait_count", item="oak_planks", atLeast=4)
    f = await bot.call("find_block", name="furnace", maxDistance=48)
    res = await bot.call(
        "smelt", x=f["x"], y=f["y"], z=f["z"], input="iron_ore", fuel="coal", count=2
    )
    assert res["output"] == "iron_ingot"
    assert 3.0 < res["seconds"] < 15.0  # two items at 2 s each
    inv = counts(res["inventory"])
    assert inv["iron_ingot"] == 2 and "iron_ore" not in inv and "coal" not in inv
    state = await admin.container(f["x"], f["y"], f["z"])
    assert state["items"] == [] and state["furnace"]["burn"] > 0  # the coal still burns
    for item, out in (("sand", "glass"), ("beef", "cooked_beef"), ("oak_log", "charcoal")):
        res = await bot.call(
            "smelt", x=f["x"], y=f["y"], z=f["z"], input=item, fuel="oak_planks", count=1
        )
        assert res["output"] == out
    inv = counts(await admin.inventory("cook"))
    assert inv["glass"] == 1 and inv["cooked_beef"] == 1 and inv["charcoal"] == 1
    # one plank was put as fuel each time, but the coal's burn time covered all
    # three items: the planks wait unburnt in the fuel slot
    assert inv["oak_planks"] == 1
    state = await admin.container(f["x"], f["y"], f["z"])
    assert state["items"] == [{"slot": 1, "name": "oak_planks", "count": 3}]


async def test_late_joiner_sees_earlier_players(make_bot: BotFactory) -> None:
    first = await make_bot("early")
    late = await make_bot("late")
    assert await late.call("players") == ["early", "late"]
    await first.wait_event("message", within=10, predicate=lambda e: "late joined" in e["message"])
    assert await first.call("players") == ["early", "late"]


@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_dead_player_respawns(
    mc_version: str, admin: AdminClient, make_bot: BotFactory
) -> None:
    """At every supported version (at 1.20.4 and 1.21.4 the respawn packet was written in its
    1.16 shape, the write threw and the dead player was dropped)."""
    bot = await make_bot("mortal")
    await admin.command("/kill mortal")
    await bot.wait_event("death", within=10)
    event = await bot.wait_event("respawned", within=10)
    assert event["health"] == 20


async def test_killed_animal_drops_meat_and_disappears(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    bot = await make_bot("hunter", stone_sword=1)
    await bot.call("equip", item="stone_sword")
    pasture = server.places["pasture"]
    t0 = time.monotonic()
    await bot.call("goto", within=40, x=pasture.x - 6, y=pasture.y, z=pasture.z, range=3)
    t1 = time.monotonic()
    res = await bot.call("kill_mob", within=40, mob="cow")
    print(f"walk {t1 - t0:.1f}s, kill {time.monotonic() - t1:.1f}s, hits {res['hits']}")
    assert res["hits"] <= 8  # by hand (1 damage) it takes 10 hits; a stone sword deals 5
    assert res["gone"]
    items = await bot.call("nearby_items", range=12)
    have = counts(await bot.call("inventory"))
    assert have.get("beef", 0) > 0 or any(i["name"] == "beef" for i in items)


async def test_restore_puts_the_generated_blocks_back(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    """``POST /world/restore``: what was changed within the radius is generated again (the
    skills bench starts every round on the same world), players see it; again, it changes nothing."""
    bot = await make_bot("restorer")
    log = await bot.call("find_block", name="birch_log")
    assert log is not None
    x, y, z = (int(log[k]) for k in ("x", "y", "z"))
    # the log dug out, and a stone put in the air above it: one column changed twice
    await admin.command(f"/setblock {x} {y} {z} air")
    await admin.command(f"/setblock {x} 120 {z} stone")

    async def block(at: tuple[int, int, int], name: str) -> None:
        deadline = time.monotonic() + 10
        while (seen := await bot.call("block_at", x=at[0], y=at[1], z=at[2])) != name:
            assert time.monotonic() < deadline, f"{at}: {seen}, not {name}"
            await asyncio.sleep(0.1)

    await block((x, y, z), "air")
    await block((x, 120, z), "stone")
    # other tests of this server may have dug the same tree: at least these two
    assert await admin.restore(x + 0.5, z + 0.5, 0.5) >= 2
    await block((x, y, z), "birch_log")
    await block((x, 120, z), "air")
    assert await admin.restore(x + 0.5, z + 0.5, 0.5) == 0
    with pytest.raises(AdminError) as err:
        await admin.restore(x, z, 65)
    assert err.value.status == 400
