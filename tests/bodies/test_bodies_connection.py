"""Connection handling on the embedded server: restart, kick, death.

This module has its own server (restarting it would disturb other tests).
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from agent_runtime.world import SkillCall
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import HostTransport, JSPyBridgeTransport, StdioTransport
from tests.bodies.conftest import connect, next_event, run, wait_until

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]


async def test_reconnect_after_server_restart(
    transport: JSPyBridgeTransport, server: EmbeddedServer
) -> None:
    body = await connect(transport, server, "phoenix")
    await next_event(body, "spawn")
    said = await run(body, "chat", message="remember me")
    assert said.success
    idle = asyncio.create_task(body.run_skill(SkillCall(skill="idle", args={"seconds": 60})))

    async def running() -> bool:
        return (await body.observe()).skill is not None

    await wait_until(running, what="idle running")
    await server.restart()

    gone = await next_event(body, "disconnected", within=15)
    assert gone.data["reason"]
    interrupted = await idle
    assert not interrupted.success and interrupted.reason == "disconnected from the server"

    back = await next_event(body, "reconnected", within=30)
    assert back.bot == body.name
    assert body.connected
    obs = await body.observe()
    assert obs.connected and obs.position is not None
    # the body kept its state across the reconnect (here: the chat it had heard is
    # still there, and the same Python object is in use)
    assert transport.bodies[body.name] is body
    again = await run(body, "chat", message="I am back")
    assert again.success, again.reason


async def test_kicked_body_reconnects(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    body = await connect(transport, server, "kicked")
    await admin.command(f"/kick {body.name} testing kicks")
    kicked = await next_event(body, "kicked", within=10)
    assert "testing kicks" in kicked.data["reason"]
    await next_event(body, "reconnected", within=30)
    assert len(body.kicks) == 1
    assert (await body.observe()).connected


async def test_observe_and_skills_while_disconnected(
    server: EmbeddedServer, admin: AdminClient
) -> None:
    # A slow reconnect (2.5-5 s) leaves time to look at the disconnected body.
    async with JSPyBridgeTransport(reconnect_base=5.0, reconnect_max=5.0) as slow:
        body = await connect(slow, server, "offline")
        await admin.command(f"/kick {body.name} bye")
        await next_event(body, "disconnected", within=10)
        assert not body.connected
        obs = await body.observe()
        assert not obs.connected and obs.position is None
        failed = await run(body, "chat", message="anyone?")
        assert not failed.success and failed.reason == "not connected to the server"
        await next_event(body, "reconnected", within=20)
        assert (await body.observe()).connected


async def test_respawn_after_death(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    body = await connect(transport, server, "mortal")
    await admin.command(f"/kill {body.name}")
    died = await next_event(body, "death", within=10)
    assert died.data["deaths"] == 1
    assert [e.kind for e in body.deaths] == ["death"]
    respawned = await next_event(body, "respawn", within=15)
    assert respawned.data["deaths"] == 1
    obs = await body.observe()
    assert obs.connected and obs.health > 0


@pytest.mark.parametrize("kind", ["jspybridge", "stdio"])
async def test_node_crash_is_reported_to_the_bodies(server: EmbeddedServer, kind: str) -> None:
    cls: type[HostTransport] = StdioTransport if kind == "stdio" else JSPyBridgeTransport
    doomed = cls()
    async with doomed:
        body = await connect(doomed, server, f"doomed{kind[0]}")
        idle = asyncio.create_task(body.run_skill(SkillCall(skill="idle", args={"seconds": 60})))

        async def running() -> bool:
            return (await body.observe()).skill is not None

        await wait_until(running, what="idle running")
        pid = (await doomed.info())["pid"]
        os.kill(pid, signal.SIGKILL)
        gone = await next_event(body, "disconnected", within=10)
        assert gone.data["fatal"] is True
        outcome = await idle
        assert not outcome.success and "exited" in outcome.reason
        assert not body.connected
