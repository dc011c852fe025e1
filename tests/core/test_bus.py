"""Buses: topic matching, bounded subscriptions, and a real mosquitto round trip."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import cast

import pytest

from agent_runtime.bus import InMemoryBus, MqttBus, topics
from agent_runtime.bus.messages import Heard, WorldEvent
from agent_runtime.services import MosquittoBroker
from agent_runtime.state.sections import Decision


def note(n: object) -> Decision:
    """A decision that says only ``n`` (its id)."""
    return Decision(id=str(n))


def line(n: object) -> Heard:
    return Heard(sender="Ann", message=str(n), at=1.0)


def test_topic_matching() -> None:
    assert topics.matches("piano/r/#", "piano/r/agent/Ann/decision")
    assert topics.matches("piano/r/agent/+/decision", "piano/r/agent/Ann/decision")
    assert not topics.matches("piano/r/agent/+/decision", "piano/r/agent/Ann/speech")
    assert not topics.matches("piano/r/agent/Ann", "piano/r/agent/Ann/decision")
    assert topics.matches("piano/r/#", "piano/r")


async def test_bounded_subscription_drops_oldest() -> None:
    bus = InMemoryBus()
    sub = bus.subscribe("piano/r/agent/+/decision", maxsize=2)
    for i in range(5):
        await bus.publish(f"piano/r/agent/A{i}/decision", note(i))
    assert sub.dropped == 3
    got = [sub.get_nowait(), sub.get_nowait(), sub.get_nowait()]
    assert [m.payload for m in got if m] == [note(3), note(4)] and got[2] is None


@pytest.mark.services
async def test_mqtt_broadcast_through_real_broker(
    mqtt_broker: MosquittoBroker, run_id: str
) -> None:
    assert mqtt_broker.port is not None
    async with (
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as a,
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as b,
    ):
        talk = a.subscribe(topics.agent(run_id, "Ann", "decision"))
        motor = a.subscribe(topics.agent(run_id, "Ann", "decision"))
        observer = b.subscribe(topics.run_wildcard(run_id))
        await b.subscriptions_ready()
        await a.publish(topics.agent(run_id, "Ann", "decision"), note("give bread to Bob"))
        async with asyncio.timeout(10):
            for sub in (talk, motor, observer):
                msg = await sub.get()
                assert msg.payload == note("give bread to Bob")
        # other runs are not delivered
        await b.publish(topics.agent("other", "Ann", "decision"), note(1))
        await b.publish(topics.world(run_id, "event"), WorldEvent(kind="tax_season_open"))
        async with asyncio.timeout(10):
            msg = await observer.get()
        assert msg.topic.endswith("/world/event")
        assert a.sent >= 1 and b.received >= 2


@pytest.mark.services
async def test_own_messages_are_delivered_in_process_once(
    mqtt_broker: MosquittoBroker, run_id: str
) -> None:
    """A module's publication reaches the same process's subscribers at once and exactly
    once (no echo from the broker), and still reaches other processes through the broker."""
    assert mqtt_broker.port is not None
    topic = topics.agent(run_id, "Ann", "decision")
    async with (
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as a,
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as b,
    ):
        mine = a.subscribe(topic)
        theirs = b.subscribe(topics.run_wildcard(run_id))
        await b.subscriptions_ready()
        await a.subscriptions_ready()
        await a.publish(topic, note(1))
        first = mine.get_nowait()  # delivered before publish() returned
        assert first is not None and first.payload == note(1)
        async with asyncio.timeout(10):
            assert (await theirs.get()).payload == note(1)  # the broadcast left the process
        await b.publish(topic, note(2))  # arrives at a through the broker, after any echo
        async with asyncio.timeout(10):
            nxt = await mine.get()
        assert nxt.payload == note(2)  # no second copy of n=1 came back from the broker


@pytest.mark.services
async def test_a_burst_reaches_the_broker_whole_and_in_order(
    mqtt_broker: MosquittoBroker, run_id: str
) -> None:
    """Hundreds of publications queued at once leave in batches: all arrive, in order."""
    assert mqtt_broker.port is not None
    async with (
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as a,
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as b,
    ):
        theirs = b.subscribe(topics.run_wildcard(run_id), maxsize=2000)
        await b.subscriptions_ready()
        for i in range(600):
            await a.publish(topics.agent(run_id, f"A{i % 7}", "decision"), note(i))
        got: list[int] = []
        async with asyncio.timeout(20):
            while len(got) < 600:
                got.append(int(cast(Decision, (await theirs.get()).payload).id))
        assert got == list(range(600))
        assert a.sent == 600


@pytest.mark.services
async def test_a_process_receives_only_what_its_subscribers_want(
    mqtt_broker: MosquittoBroker, run_id: str
) -> None:
    """The broker sends a bus only the topics it has subscribers for (a worker does not
    parse every other worker's traffic); a subscription made later is honoured once ready,
    and a closed one is dropped at the broker."""
    assert mqtt_broker.port is not None
    async with (
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as a,
        MqttBus("127.0.0.1", mqtt_broker.port, run_id) as b,
    ):
        bob = b.subscribe(topics.agent(run_id, "Bob", "heard"))
        await b.subscriptions_ready()
        for i in range(50):  # traffic b has no subscriber for
            await a.publish(topics.agent(run_id, "Ann", "decision"), note(i))
        await a.publish(topics.agent(run_id, "Bob", "heard"), line("for Bob"))
        async with asyncio.timeout(10):
            assert (await bob.get()).payload == line("for Bob")
        assert b.received == 1  # Ann's decisions never reached b (ordered before Bob's)
        later = b.subscribe(topics.agent(run_id, "+", "decision"))
        await b.subscriptions_ready()
        await a.publish(topics.agent(run_id, "Ann", "decision"), note("now"))
        async with asyncio.timeout(10):
            assert (await later.get()).payload == note("now")
        later.close()
        bob.close()
        await b.subscriptions_ready()
        await a.publish(topics.agent(run_id, "Bob", "heard"), line("gone"))
        marker = b.subscribe(topics.agent(run_id, "Cy", "heard"))
        await b.subscriptions_ready()
        await a.publish(topics.agent(run_id, "Cy", "heard"), line("marker"))
        async with asyncio.timeout(10):
            assert (await marker.get()).payload == line("marker")
        assert b.received == 3  # for Bob, now, marker: not "gone"


@pytest.mark.services
@pytest.mark.parametrize("killed_while", ["idle", "receiving"])
async def test_the_bus_comes_back_after_a_broker_sigkill(
    mqtt_broker: MosquittoBroker, run_id: str, killed_while: str
) -> None:
    """The data path, not the process: after the broker is killed and restarted on its port,
    what one bus publishes reaches another bus through the broker again (on Python 3.11 a
    cancel left by the connection's task group ended the reconnect loop for good)."""
    assert mqtt_broker.port is not None and mqtt_broker.pid is not None
    supervisor = asyncio.create_task(mqtt_broker.supervise())
    try:
        async with (
            MqttBus("127.0.0.1", mqtt_broker.port, run_id) as a,
            MqttBus("127.0.0.1", mqtt_broker.port, run_id) as b,
        ):
            heard = b.subscribe(topics.agent(run_id, "Ann", "decision"))
            await b.subscriptions_ready()
            topic = topics.agent(run_id, "Ann", "decision")
            if killed_while == "receiving":  # b's reader is inside its message iteration
                await a.publish(topic, note(0))
                async with asyncio.timeout(10):
                    assert (await heard.get()).payload == note(0)
            os.kill(mqtt_broker.pid, signal.SIGKILL)
            async with asyncio.timeout(30):
                while mqtt_broker.restarts < 1:  # noqa: ASYNC110 - the supervisor's counter
                    await asyncio.sleep(0.05)
            # b subscribes again on its new session; then what a publishes reaches it
            # (MQTT drops what is published before the subscription: a broadcast, so repeat)
            async with asyncio.timeout(30):
                await b.subscriptions_ready()
                msg = None
                while msg is None:
                    await a.publish(topic, note(1))
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.5):
                            msg = await heard.get()
            assert msg.payload == note(1) and a.reconnects >= 1 and b.reconnects >= 1
    finally:
        supervisor.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await supervisor
