"""The second transport (JSON lines to a Node sidecar) runs the same bodies."""

from __future__ import annotations

from collections.abc import AsyncIterator

import psutil
import pytest
import pytest_asyncio

from agent_runtime.world import Observation
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import StdioTransport
from tests.bodies.conftest import connect, next_event, place_xyz, run, wait_until

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module")
async def sidecar() -> AsyncIterator[StdioTransport]:
    async with StdioTransport() as t:
        yield t


async def test_two_bodies_observe_chat_collect_craft_deposit_over_stdio(
    sidecar: StdioTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    ada = await connect(sidecar, server, "ada")
    bo = await connect(sidecar, server, "bo")

    async def sees_bo() -> Observation | None:
        obs = await ada.observe()
        return obs if bo.name in {p.name for p in obs.players} else None

    obs = await wait_until(sees_bo, what="ada to see bo")
    assert obs.connected and obs.position is not None
    assert (await run(ada, "chat", message="over the sidecar")).success
    heard = await next_event(bo, "chat", where=lambda e: e.data["sender"] == ada.name)
    assert heard.data["message"] == "over the sidecar"

    assert (await run(bo, "go_to", range=2.0, **place_xyz(server, "forest"))).success
    logs = await run(bo, "collect", block="log", count=1)
    assert logs.success, logs.reason
    planks = await run(bo, "craft", item="planks", count=4)
    assert planks.success, planks.reason
    kind = next(k for k in planks.inventory_delta if k.endswith("_planks"))
    x, y, z = server.community_chests[2]
    stored = await run(bo, "deposit", item=kind, count=4, x=float(x), y=float(y), z=float(z))
    assert stored.success, stored.reason
    assert sum(i["count"] for i in await admin.chest(x, y, z) if i["name"] == kind) >= 4


async def test_sidecar_stops_cleanly_and_reports_calls(server: EmbeddedServer) -> None:
    async with StdioTransport() as t:
        body = await connect(t, server, "brief")
        info = await t.info()
        assert info["pid"] == t.pid and info["bots"] == 1
        await body.observe()
        assert t.calls >= 3 and t.failed_calls == 0 and len(t.call_latencies) >= 3
        pid = t.pid
    assert pid is not None
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
