"""Players are untrusted: a real Minecraft client (plain mineflayer, not our bodies) that
asks the embedded server for powers or digs beyond vanilla reach is refused.

The server under test is the production one (``EmbeddedServer``: no "everybody op"), and
the player is a JsBot, a client that knows nothing of our code.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from bots.admin import AdminClient

from .conftest import BotFactory, JsBot, counts


def _refusal(event: dict[str, Any]) -> bool:
    return event.get("event") == "message" and "do not have permission" in str(
        event.get("message", "")
    ).lower()


async def _refused(bot: JsBot, n: int) -> None:
    """Wait until the server has refused ``n`` commands of this player."""
    async with asyncio.timeout(10):
        while sum(map(_refusal, bot.events)) < n:  # noqa: ASYNC110 - the bot's event list
            await asyncio.sleep(0.05)


async def test_a_player_cannot_op_itself_or_give_itself_items(
    admin: AdminClient, make_bot: BotFactory
) -> None:
    mallory = await make_bot("mallory")
    commands = ("/op mallory", "/give mallory diamond 64", "/gamemode creative mallory")
    for n, command in enumerate(commands, 1):
        await mallory.call("chat", message=command)
        await _refused(mallory, n)
    # the server's own record: no diamonds, still not allowed to give
    assert counts(await admin.inventory("mallory")).get("diamond", 0) == 0
    await mallory.call("chat", message="/give mallory diamond 1")
    await _refused(mallory, len(commands) + 1)
    assert counts(await admin.inventory("mallory")).get("diamond", 0) == 0


async def test_a_dig_beyond_vanilla_reach_is_refused_and_the_block_stays(
    admin: AdminClient, make_bot: BotFactory
) -> None:
    mallory = await make_bot("mallory")
    x, y, z = (math.floor(v) for v in (await mallory.call("position")).values())
    near, far = (x + 3, y, z), (x + 8, y, z)  # eyes to centre: ~3.2 and ~8.1 blocks
    for bx, by, bz in (near, far):
        await admin.command(f"/setblock {bx} {by} {bz} sponge")
    for bx, by, bz in (near, far):
        await mallory.call("wait_block", x=bx, y=by, z=bz, name="sponge")
    # within reach: the dig goes through (the check would tell a refused one)
    done = await mallory.call("dig_from_here", x=near[0], y=near[1], z=near[2])
    assert done["finished"] and done["blockNow"] == "air", done
    # from 8 blocks: mineflayer marks the block dug on its own side, then the server refuses
    # and sends the block back to the digger
    refused = await mallory.call("dig_from_here", x=far[0], y=far[1], z=far[2], ms=4000)
    assert refused["distance"] > 6, refused
    await mallory.call("wait_block", x=far[0], y=far[1], z=far[2], name="sponge")
    assert counts(await admin.inventory("mallory")).get("sponge", 0) == 0
    # a player who joins afterwards is sent the server's own world: the sponge is there
    witness = await make_bot("witness")
    await witness.call("wait_block", x=far[0], y=far[1], z=far[2], name="sponge")
    assert await witness.call("block_at", x=near[0], y=near[1], z=near[2]) == "air"
