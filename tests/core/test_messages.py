"""One typed message per topic: the table, the refusal of anything else, in-process hand-over
and validation of what comes from the wire."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agent_runtime.bus import InMemoryBus, MqttBus, topics
from agent_runtime.bus.local import LocalDispatch
from agent_runtime.bus.messages import (
    DECISION,
    TOPICS,
    Heard,
    SkillEvent,
    WorldEvent,
    encode,
    model_for,
)
from agent_runtime.state.sections import Decision
from agent_runtime.world import SkillCall

RUN = "r1"


def buses() -> list[LocalDispatch]:
    """Every bus, the MQTT one unconnected: publishing checks and delivers in process
    before anything is sent."""
    return [InMemoryBus(), MqttBus("127.0.0.1", 1, RUN)]


def test_the_topic_table_is_the_list_of_models() -> None:
    """The table in ``agent_runtime/bus/topics.py`` names every topic of ``TOPICS`` with its
    publisher and model, and nothing else."""
    assert topics.__doc__ is not None
    rows = re.findall(
        r"^\| ``piano/\{run\}/(\S+)``\s*\| ([^|]+?)\s*\| ``(\w+)``\s*\|$",
        topics.__doc__,
        re.MULTILINE,
    )
    table = {(path, publisher, model) for path, publisher, model in rows}
    models = {(t.pattern(), t.publisher, t.model.__name__) for t in TOPICS}
    assert table == models
    assert len(rows) == len(TOPICS)


def test_every_topic_resolves_to_its_model() -> None:
    for t in TOPICS:
        full = f"piano/{RUN}/" + t.pattern().replace("{a}", "Ann")
        assert model_for(full) is t.model, full
    assert model_for(f"piano/{RUN}/world/chat") is None  # heard chat is per agent
    assert model_for(f"piano/{RUN}/agent/Ann/poke") is None


@pytest.mark.parametrize("bus", buses(), ids=["memory", "mqtt"])
async def test_an_untyped_publish_is_refused(bus: LocalDispatch) -> None:
    """A dict is a TypeError at run time on every bus (and a type error under mypy: the
    ignore below would be reported as unused if ``publish`` took a dict), so is another
    topic's model; a topic with no model is a ValueError. Nothing is delivered."""
    topic = topics.agent(RUN, "Ann", "decision")
    sub = bus.subscribe(topic)
    with pytest.raises(TypeError, match="carries Decision, not dict"):
        await bus.publish(topic, {"id": "d1"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="carries Decision, not WorldEvent"):
        await bus.publish(topic, WorldEvent(kind="announcement"))
    with pytest.raises(ValueError, match="no message model"):
        await bus.publish(topics.agent(RUN, "Ann", "poke"), Decision())
    assert sub.get_nowait() is None and bus.published == 0


@pytest.mark.parametrize("bus", buses(), ids=["memory", "mqtt"])
async def test_in_process_subscribers_get_the_published_model_itself(bus: LocalDispatch) -> None:
    """No JSON round trip between the modules of one process: every subscriber gets the
    very object that was published (frozen, so sharing it is safe)."""
    decision = Decision(id="d1", skill=SkillCall(skill="collect", args={"block": "log"}))
    talk, motor = bus.subscribe(topics.agent(RUN, "Ann", "decision")), bus.subscribe(
        topics.agent(RUN, "+", "decision")
    )
    await bus.publish(topics.agent(RUN, "Ann", DECISION.kind), decision)
    for sub in (talk, motor):
        msg = sub.get_nowait()
        assert msg is not None and msg.payload is decision


def test_messages_from_the_wire_are_validated_into_their_model() -> None:
    """What another process sends arrives as its topic's model; fields the model does not
    have are dropped; what is not the model's JSON, or on a topic with none, is dropped."""
    bus = InMemoryBus()
    heard = bus.subscribe(topics.agent(RUN, "Ann", "heard"))
    world = bus.subscribe(topics.world(RUN, "event"))
    skill = bus.subscribe(topics.agent(RUN, "Ann", "skill"))
    line = Heard(sender="Bob", message="hi Ann", to_me=True, at=2.0)
    bus.dispatch_raw(topics.agent(RUN, "Ann", "heard"), encode(line))
    bus.dispatch_raw(
        topics.world(RUN, "event"),
        b'{"kind": "announcement", "text": "Tax season 1", "at": 1.0, "rate": 0.9}',
    )
    bus.dispatch_raw(topics.agent(RUN, "Ann", "skill"), b'{"event": "started"}')  # no call
    bus.dispatch_raw(topics.agent(RUN, "Ann", "heard"), b"not json")
    got = heard.get_nowait()
    assert got is not None and got.payload == line and heard.get_nowait() is None
    news = world.get_nowait()
    assert news is not None and news.payload == WorldEvent(
        kind="announcement", text="Tax season 1", at=1.0
    )
    assert "rate" not in news.payload.model_dump()
    assert skill.get_nowait() is None


def test_the_wire_form_is_the_models_json() -> None:
    """External subscribers (the web page, ``piano replay``'s sources, anyone on the broker)
    read the same field names as before the models."""
    call = SkillCall(skill="craft", args={"item": "stick", "count": 4})
    data: dict[str, Any] = SkillEvent.model_validate_json(
        encode(SkillEvent(event="started", decision="d1", call=call))
    ).model_dump(mode="json")
    assert data["event"] == "started" and data["call"]["args"] == {"item": "stick", "count": 4}
