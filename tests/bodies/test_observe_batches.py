"""Observations of many bodies go over the bridge together (one ``observeMany`` call for all
the snapshots asked for while the previous call was in flight), and each waiter still gets
its own body's snapshot. Without the batching, 50 bodies observed once a second made 50
queued round trips a second through JSPyBridge's one call thread: under load every call
waited out its timeout behind the others (culture at scale 0.1: 1333 body calls timed out)."""

from __future__ import annotations

import asyncio

import pytest

from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import HostTransport, JSPyBridgeTransport, StdioTransport
from bots.transport._errors import BodyClosedError

from .conftest import connect, wait_until

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]

SPOTS = ((3.5, 3.5), (9.5, 3.5), (3.5, 9.5), (9.5, 9.5))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["jspybridge", "stdio"])
async def test_concurrent_observations_share_a_call_and_keep_their_own_snapshot(
    server: EmbeddedServer, admin: AdminClient, kind: str
) -> None:
    t: HostTransport = JSPyBridgeTransport() if kind == "jspybridge" else StdioTransport()
    async with t:
        bodies = [await connect(t, server, f"batch{kind[:3]}") for _ in SPOTS]
        for body, (x, z) in zip(bodies, SPOTS, strict=True):
            await admin.teleport(body.name, x, 80, z)

        async def all_placed() -> bool:
            snaps = await asyncio.gather(*(b.observe() for b in bodies))
            return all(
                s.position is not None and abs(s.position.x - x) < 1 and abs(s.position.z - z) < 1
                for s, (x, z) in zip(snaps, SPOTS, strict=True)
            )

        await wait_until(all_placed, within=30, what="every body at its own spot")

        batches, snapshots, calls = t.observe_batches, t.observe_snapshots, t.calls
        rounds = 10
        for _ in range(rounds):
            snaps = await asyncio.gather(*(b.observe() for b in bodies))
            for snap, (x, z) in zip(snaps, SPOTS, strict=True):
                assert snap.position is not None
                assert abs(snap.position.x - x) < 1 and abs(snap.position.z - z) < 1
        made = t.observe_batches - batches
        assert t.observe_snapshots - snapshots == rounds * len(bodies)
        # 4 bodies observed at once, 10 times: one call per round, not one per body.
        assert made == rounds, made
        assert t.calls - calls == rounds

        # A body the host does not know answers with its own error, the others are unaffected.
        gone = bodies.pop()
        await gone.close()
        snaps = await asyncio.gather(*(b.observe() for b in bodies))
        assert len(snaps) == len(bodies)

    # Closed: asking again is a clear error, and nothing is left waiting.
    with pytest.raises(BodyClosedError):
        await t._observe(bodies[0].name)
    assert not t._obs_wanted
