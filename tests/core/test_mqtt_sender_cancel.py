"""Stopping the MQTT bus does not hang when a cancel is swallowed inside ``publish``
(``asyncio.wait_for`` in aiomqtt can do that on Python 3.11 when the publish completes as
the cancel arrives)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from agent_runtime.bus import MqttBus


class SwallowingClient:
    """A client whose publish finishes even when cancelled, as wait_for's race does."""

    def __init__(self) -> None:
        self.published: list[str] = []
        self.started = asyncio.Event()

    async def publish(self, topic: str, data: bytes, qos: int = 0) -> None:
        self.started.set()
        with contextlib.suppress(asyncio.CancelledError):  # as wait_for's race does
            await asyncio.sleep(10)
        self.published.append(topic)


async def test_the_sender_stops_when_its_cancel_was_swallowed_by_publish() -> None:
    bus = MqttBus("127.0.0.1", 1, "r1")
    client: Any = SwallowingClient()
    await bus.publish("piano/r1/agent/Ann/x", {"a": 1})
    sender = asyncio.create_task(bus._sender(client))
    await asyncio.wait_for(client.started.wait(), 5)
    sender.cancel()
    await asyncio.wait({sender}, timeout=5)
    assert sender.done() and sender.cancelled()
    assert client.published == ["piano/r1/agent/Ann/x"]
