"""A walk keeps its path when a block is set beside it but none of its moves changed
(``bots/body/lib/path_keep.js``), on a real server with a real body.

mineflayer-pathfinder threw its path away and searched again for any block of another type
set within a block or two of the path ahead; a body walking a straight causeway planned once
for the walk and once more for a block set just under the causeway's edge ahead of it, which
none of its steps stands on or passes through."""

from __future__ import annotations

import asyncio

import pytest

from agent_runtime.world import Observation
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import JSPyBridgeTransport
from tests.bodies.conftest import connect, run, wait_until

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]

FLOOR_Y = 149  # above the village square, clear of everything the world generates
END_X = 30  # the causeway runs from x = -2 to END_X + 2 along z = -1..1
BESIDE_X = 24  # where the block is set: under the causeway's edge (x, FLOOR_Y - 1, 1)


async def test_a_block_set_beside_a_walk_does_not_make_it_plan_again(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    for x in range(-2, END_X + 3):
        for z in (-1, 0, 1):
            await admin.command(f"/setblock {x} {FLOOR_Y} {z} stone")
    await admin.command(f"/setblock {BESIDE_X} {FLOOR_Y - 1} 1 air")
    body = await connect(transport, server, "causeway")
    await admin.teleport(body.name, 0.5, FLOOR_Y + 1, 0.5)

    async def standing(x_min: float, x_max: float) -> Observation | None:
        obs = await body.observe()
        p = obs.position
        ok = p is not None and abs(p.y - (FLOOR_Y + 1)) < 0.1 and x_min <= p.x <= x_max
        return obs if ok else None

    await wait_until(lambda: standing(0, 1), within=20, what="the body on the causeway")
    walk = asyncio.create_task(
        run(body, "go_to", x=END_X + 0.5, y=float(FLOOR_Y + 1), z=0.5, range=0.5)
    )
    try:
        # on its way, well before the block: the path is planned and walked
        await wait_until(lambda: standing(4, 14), within=20, what="the body walking")
        await admin.command(f"/setblock {BESIDE_X} {FLOOR_Y - 1} 1 stone")
        outcome = await asyncio.wait_for(walk, timeout=60)
    finally:
        walk.cancel()
    assert outcome.success, outcome.reason
    timing = outcome.detail.get("timing", {})
    # one search for the walk: the block beside the way did not start another
    assert timing.get("plans") == 1, timing
