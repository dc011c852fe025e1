"""Hearing on the embedded world with real bodies (issue 12): with a hearing radius of 32
blocks, a body 10 blocks from the speaker hears its public chat, a body 200 blocks away does
not, and a whisper across the map reaches its addressee."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from agent_runtime.world import BodyEvent
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import JSPyBridgeTransport, MineflayerBody

from .conftest import connect, next_event, run, wait_until

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(loop_scope="module")
async def hearing_transport() -> AsyncIterator[JSPyBridgeTransport]:
    async with JSPyBridgeTransport(hearing_radius=32.0) as t:
        yield t


async def _place(admin: AdminClient, body: MineflayerBody, x: float, z: float) -> None:
    await admin.teleport(body.name, x, 80, z)

    async def there() -> bool:
        p = (await body.observe()).position
        return p is not None and abs(p.x - x) < 2 and abs(p.z - z) < 2

    await wait_until(there, within=20, what=f"{body.name} at ({x}, {z})")


@pytest.mark.timeout(150)
async def test_chat_is_heard_nearby_and_whispers_anywhere(
    hearing_transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    t = hearing_transport
    speaker = await connect(t, server, "speak")
    near = await connect(t, server, "near")
    far = await connect(t, server, "far")
    x0, z0 = 5.5, 5.5
    await _place(admin, speaker, x0, z0)
    await _place(admin, near, x0 + 10, z0)
    await _place(admin, far, x0 + 200, z0)

    async def near_sees_speaker() -> bool:
        return any(p.name == speaker.name for p in (await near.observe()).players)

    await wait_until(near_sees_speaker, within=20, what="the near body tracking the speaker")

    said = await run(speaker, "chat", message="hello neighbours")
    assert said.success, said.reason
    heard = await next_event(near, "chat", where=lambda e: e.data["sender"] == speaker.name)
    assert heard.data["message"] == "hello neighbours"

    # the whisper is sent after the chat line: the server delivers them in this order, so
    # every event the far body got before the whisper includes the chat line if it heard it
    whispered = await run(speaker, "whisper", player=far.name, message="across the map")
    assert whispered.success, whispered.reason
    before: list[BodyEvent] = []

    def note(e: BodyEvent) -> bool:
        before.append(e)
        return e.kind == "whisper" and e.data["sender"] == speaker.name

    secret = await next_event(far, "whisper", within=15, where=note)
    assert secret.data["message"] == "across the map"
    assert not [e for e in before if e.kind == "chat"], before
    far_obs = await far.observe()
    assert [c.message for c in far_obs.chat] == ["across the map"]
