"""Stopping the MQTT bus does not hang when a cancel is swallowed inside ``publish``
(``asyncio.wait_for`` in aiomqtt can do that on Python 3.11 when the publish completes as
the cancel arrives)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from agent_runtime.bus import MqttBus
from agent_runtime.state.sections import Decision


class _Info:
    rc = 0


class _Paho:
    """paho's side of the client: ``publish`` queues a packet and returns at once."""

    def __init__(self, published: list[str]) -> None:
        self.published = published

    def publish(self, topic: str, data: bytes, qos: int = 0) -> _Info:
        self.published.append(topic)
        return _Info()


class SwallowingClient:
    """A client whose publish finishes even when cancelled, as wait_for's race does."""

    def __init__(self) -> None:
        self.published: list[str] = []
        self.awaited: list[str] = []
        self.started = asyncio.Event()
        self._client = _Paho(self.published)

    async def publish(self, topic: str, data: bytes, qos: int = 0) -> None:
        self.awaited.append(topic)
        self.started.set()
        with contextlib.suppress(asyncio.CancelledError):  # as wait_for's race does
            await asyncio.sleep(10)
        self.published.append(topic)


async def test_the_sender_stops_when_its_cancel_was_swallowed_by_publish() -> None:
    bus = MqttBus("127.0.0.1", 1, "r1")
    client: Any = SwallowingClient()
    await bus.publish("piano/r1/agent/Ann/decision", Decision())
    sender = asyncio.create_task(bus._sender(client))
    await asyncio.wait_for(client.started.wait(), 5)
    sender.cancel()
    await asyncio.wait({sender}, timeout=5)
    assert sender.done() and sender.cancelled()
    assert client.published == ["piano/r1/agent/Ann/decision"]


async def test_the_sender_hands_over_everything_queued_and_waits_only_for_the_last() -> None:
    bus = MqttBus("127.0.0.1", 1, "r1")
    client: Any = SwallowingClient()
    topics = [f"piano/r1/agent/A{i}/decision" for i in range(5)]
    for topic in topics:
        await bus.publish(topic, Decision())
    sender = asyncio.create_task(bus._sender(client))
    await asyncio.wait_for(client.started.wait(), 5)
    # the first four were queued on the socket without a wait each; only the last is awaited
    assert client.awaited == [topics[-1]]
    sender.cancel()
    await asyncio.wait({sender}, timeout=5)
    assert client.published == topics  # in order, each once
    assert bus.sent == 5


class SwallowingSubscribeClient:
    """A client whose (un)subscribe finishes even when cancelled, as wait_for's race does."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.started = asyncio.Event()

    async def subscribe(self, topics: list[tuple[str, Any]]) -> None:
        self.calls.append([t for t, _ in topics])
        self.started.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)

    async def unsubscribe(self, topics: list[str]) -> None:
        self.calls.append(topics)


async def test_the_subscriber_stops_when_its_cancel_was_swallowed_by_subscribe() -> None:
    bus = MqttBus("127.0.0.1", 1, "r1")
    client: Any = SwallowingSubscribeClient()
    bus.subscribe("piano/r1/agent/Ann/heard")
    bus.subscribe("piano/r1/agent/Bob/heard")
    task = asyncio.create_task(bus._subscriber(client))
    await asyncio.wait_for(client.started.wait(), 5)
    task.cancel()
    await asyncio.wait({task}, timeout=5)
    assert task.done() and task.cancelled()
    assert client.calls == [["piano/r1/agent/Ann/heard", "piano/r1/agent/Bob/heard"]]
