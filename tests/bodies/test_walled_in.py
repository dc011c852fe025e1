"""A body walled in by its own digging gets out, as a player would (issue 18).

Walks never dig, so a body in a quarry it dug could not leave it: two item-progression
explorers who quarried stone around them failed every explore "in 4 directions" for 20
minutes. The escape (dig out through the ground, man-made blocks spared) only knew pits of
fewer than 8 positions; a 5 x 5 quarry was "open ground"."""

from __future__ import annotations

import pytest

from agent_runtime.world import Observation
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import JSPyBridgeTransport
from tests.bodies.conftest import connect, run, wait_until

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]

FLOOR_Y = 149  # above the village square, clear of everything the world generates
PLATFORM = 6  # the floor spans -6..6 around (0, 0)
WALL = 3  # dirt walls three high at |x| == 3 or |z| == 3: a 5 x 5 quarry inside


async def test_a_body_digs_out_of_a_quarry_too_big_for_the_old_pit_test(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    for x in range(-PLATFORM, PLATFORM + 1):
        for z in range(-PLATFORM, PLATFORM + 1):
            await admin.command(f"/setblock {x} {FLOOR_Y} {z} stone")
            if max(abs(x), abs(z)) == WALL:
                for dy in (1, 2, 3):
                    await admin.command(f"/setblock {x} {FLOOR_Y + dy} {z} dirt")
    body = await connect(transport, server, "quarrier")
    await admin.teleport(body.name, 0.5, FLOOR_Y + 1, 0.5)

    async def inside() -> Observation | None:
        obs = await body.observe()
        p = obs.position
        ok = p is not None and abs(p.y - (FLOOR_Y + 1)) < 0.1 and abs(p.x) < WALL
        return obs if ok else None

    await wait_until(inside, within=20, what="the body standing in the quarry")
    out = await run(body, "go_to", x=5.5, y=float(FLOOR_Y + 1), z=0.5, range=1.0)
    assert out.success, out.reason
    p = (await body.observe()).position
    assert p is not None and p.x > WALL and abs(p.y - (FLOOR_Y + 1)) < 0.1, p
