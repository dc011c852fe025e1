"""Perception: an announcement on the world topic becomes a public heard line and a memory;
nothing but its speaker and text reaches the agent."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.interfaces import Schedule
from agent_runtime.state.sections import Perception
from agent_runtime.world import NearbyPlayer, Observation, Vec3
from modules.base import memory_inbox
from modules.perception import PerceptionModule
from tests.modules.helpers import agent_state


async def test_announcements_are_heard_as_public_lines() -> None:
    async with local_services() as svc:
        agent_state(svc)
        pm = PerceptionModule(Schedule(cadence=1.0, triggers=frozenset({"world:event"})))
        ctx = module_context(svc, pm, agent="Ann")
        heard = svc.bus.subscribe(topics.agent(svc.run_id, "Ann", "heard"))
        await svc.bus.publish(
            topics.world(svc.run_id, "event"),
            {
                "kind": "announcement",
                "speaker": "Mayor",
                "text": "Tax season 1 is open.",
                "at": 3.0,
                "rate": 0.9,
            },
        )
        await pm.step(ctx)
        msg = heard.get_nowait()
        assert msg is not None
        assert msg.payload == {
            "sender": "Mayor",
            "message": "Tax season 1 is open.",
            "whisper": False,
            "to_me": False,
            "public": True,
            "announcement": True,
            "at": 3.0,
        }
        assert any(
            m.text == "Announcement from Mayor: Tax season 1 is open." for m in memory_inbox(ctx)
        )


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
                {"kind": "player_joined", "data": {"player": who}, "at": 2.0},
            )
        await pm.step(ctx)
        joined = [m.text for m in memory_inbox(ctx) if m.text.endswith("joined the world.")]
        assert joined == ["Bob joined the world."]
