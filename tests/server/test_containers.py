"""Chests: mineflayer openContainer deposit / withdraw, shift-click, two viewers,
persistence across a restart, contents dropped when the chest is broken."""

from __future__ import annotations

import pytest

from bots.admin import AdminClient
from bots.server_host import EmbeddedServer

from .conftest import BotFactory, JsBot, counts

pytestmark = pytest.mark.minecraft


async def test_deposit_withdraw_and_admin_view(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    bot = await make_bot("keeper", cobblestone=70, bread=5)
    x, y, z = server.community_chests[1]
    res = await bot.call("chest_deposit", x=x, y=y, z=z, item="cobblestone", count=66)
    assert counts(res["chest"]) == {"cobblestone": 66}
    assert counts(res["inventory"]) == {"cobblestone": 4, "bread": 5}
    res = await bot.call("chest_deposit", x=x, y=y, z=z, item="bread", count=5)
    assert counts(res["chest"]) == {"cobblestone": 66, "bread": 5}
    assert counts(await admin.chest(x, y, z)) == {"cobblestone": 66, "bread": 5}
    res = await bot.call("chest_withdraw", x=x, y=y, z=z, item="cobblestone", count=10)
    assert counts(res["chest"]) == {"cobblestone": 56, "bread": 5}
    assert counts(res["inventory"]) == {"cobblestone": 14}
    assert counts(await admin.inventory("keeper")) == {"cobblestone": 14}
    assert counts(await admin.chest(x, y, z)) == {"cobblestone": 56, "bread": 5}
    # reopening shows the same contents
    assert counts(await bot.call("chest_contents", x=x, y=y, z=z)) == {
        "cobblestone": 56,
        "bread": 5,
    }


async def test_shift_click_moves_stack_out(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    bot = await make_bot("shifty", oak_log=12)
    x, y, z = server.community_chests[2]
    await bot.call("chest_deposit", x=x, y=y, z=z, item="oak_log", count=12)
    res = await bot.call("chest_shift_click", x=x, y=y, z=z, slot=0)
    assert res["chest"] == []
    assert counts(res["inventory"]) == {"oak_log": 12}
    assert await admin.chest(x, y, z) == []
    assert counts(await admin.inventory("shifty")) == {"oak_log": 12}


async def test_two_players_share_a_chest(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    a = await make_bot("ann", apple=7)
    b = await make_bot("ben")
    x, y, z = server.community_chests[0]
    await a.call("chest_deposit", x=x, y=y, z=z, item="apple", count=7)
    res = await b.call("chest_withdraw", x=x, y=y, z=z, item="apple", count=3)
    assert counts(res["inventory"]) == {"apple": 3}
    assert counts(await admin.chest(x, y, z)) == {"apple": 4}
    assert counts(await a.call("chest_contents", x=x, y=y, z=z)) == {"apple": 4}


async def test_chest_persists_across_restart_and_drops_when_broken(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    bot = await make_bot("mover", chest=1, diamond=3)
    placed = await bot.call("place_near", item="chest")
    p = placed["position"]
    assert placed["name"] == "chest"
    await bot.call("chest_deposit", x=p["x"], y=p["y"], z=p["z"], item="diamond", count=3)
    await bot.call("quit")
    await bot.wait_event("end")
    await server.restart()
    assert server.admin_url is not None
    async with AdminClient(server.admin_url) as admin2:
        assert counts(await admin2.chest(p["x"], p["y"], p["z"])) == {"diamond": 3}
        bot2 = JsBot(server.port, "mover")
        try:
            await bot2.start()
            assert counts(await bot2.call("chest_contents", x=p["x"], y=p["y"], z=p["z"])) == {
                "diamond": 3
            }
            # breaking the chest drops the chest and its contents
            await bot2.call("dig_at", x=p["x"], y=p["y"], z=p["z"])
            res = await bot2.call("pickup", x=p["x"], y=p["y"], z=p["z"], item="diamond", atLeast=3)
            assert counts(res["inventory"])["diamond"] == 3
        finally:
            await bot2.close()
