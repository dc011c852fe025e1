"""Perception: an announcement on the world topic becomes a public heard line and a memory;
nothing but its speaker and text reaches the agent."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Heard, WorldEvent
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Perception
from agent_runtime.world import BodyEvent, NearbyPlayer, Observation, Vec3
from modules.perception import PerceptionModule
from tests.modules.helpers import agent_state


async def test_announcements_are_heard_as_public_lines() -> None:
    async with local_services() as svc:
        agent_state(svc)
        pm = PerceptionModule(Schedule(cadence=1.0, triggers=frozenset({"world:event"})))
        ctx = module_context(svc, pm, agent="Ann")
        heard = svc.bus.subscribe(topics.agent(svc.run_id, "Ann", "heard"))
        news = {
            "kind": "announcement",
            "speaker": "Mayor",
            "text": "Tax season 1 is open.",
            "at": 3.0,
            "rate": 0.9,  # what the world knows and does not say: dropped by its model
        }
        await svc.bus.publish(topics.world(svc.run_id, "event"), WorldEvent.model_validate(news))
        await pm.step(ctx)
        msg = heard.get_nowait()
        assert msg is not None
        assert msg.payload == Heard(
            sender="Mayor", message="Tax season 1 is open.", announcement=True, at=3.0
        )
        assert any(m.text == "Announcement from Mayor: Tax season 1 is open." for m in ctx.memory)


async def test_observation_lands_in_the_perception_section() -> None:
    async with local_services() as svc:
        st = agent_state(svc)
        obs = Observation(
            inventory={"bread": 2},
            players=(NearbyPlayer(name="Bob", position=Vec3(x=1, y=64, z=0), distance=3.0),),
        )
        pm = PerceptionModule(Schedule(cadence=1.0))
        await pm.step(module_context(svc, pm, agent="Ann", body=RecordingBody("Ann", obs)))
        per = st.get("perception", Perception)
        assert per.observation.inventory == {"bread": 2} and per.others_near == ("Bob",)


async def test_a_player_joining_is_remembered_by_the_body_events_name() -> None:
    """The body reports ``player_joined`` with ``{"player": name}`` (bots/body/plugins/events.js)."""
    async with local_services() as svc:
        agent_state(svc)
        pm = PerceptionModule(Schedule(cadence=1.0, triggers=frozenset({"topic:event"})))
        ctx = module_context(svc, pm, agent="Ann")
        for who in ("Bob", "Ann"):  # her own join is not news
            await svc.bus.publish(
                topics.agent(svc.run_id, "Ann", "event"),
                BodyEvent(kind="player_joined", bot="Ann", data={"player": who}, at=2.0),
            )
        await pm.step(ctx)
        joined = [m.text for m in ctx.memory if m.text.endswith("joined the world.")]
        assert joined == ["Bob joined the world."]


class _SlowBridge(RecordingBody):
    """Answers while ``answering`` is set; otherwise the bridge call fails (as a starved
    or dead JSPyBridge call does)."""

    answering = True

    async def observe(self) -> Observation:
        if not self.answering:
            raise TimeoutError("bridge call observe timed out after 10 s")
        return self.observation


async def test_a_missed_observation_keeps_what_was_seen_until_the_body_is_cut_off() -> None:
    """One slow bridge call must not make an agent forget its inventory and surroundings
    (it then perceived nothing and its controller idled); three in a row mean the body is
    cut off, and the agent still remembers what it held and saw."""
    async with local_services() as svc:
        st = agent_state(svc)
        body = _SlowBridge(
            "Ann",
            Observation(
                inventory={"oak_log": 3},
                players=(NearbyPlayer(name="Bob", position=Vec3(x=1, y=64, z=0), distance=3.0),),
            ),
        )
        pm = PerceptionModule(Schedule(cadence=1.0))
        ctx = module_context(svc, pm, agent="Ann", body=body)
        await pm.step(ctx)
        body.answering = False
        for _ in range(pm.cut_off_after - 1):
            await pm.step(ctx)
            per = st.get("perception", Perception)
            assert per.observation.connected and per.observation.inventory == {"oak_log": 3}
            assert per.others_near == ("Bob",)
        await pm.step(ctx)
        per = st.get("perception", Perception)
        assert not per.observation.connected
        assert per.observation.inventory == {"oak_log": 3} and per.others_near == ()
        body.answering = True
        await pm.step(ctx)
        per = st.get("perception", Perception)
        assert per.observation.connected and per.others_near == ("Bob",)
