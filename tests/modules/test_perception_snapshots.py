"""Perception takes one snapshot a cadence: a step woken early by an event handles the event
at once (a heard line, a death) and takes no snapshot while the last one is younger than the
cadence; every timed step takes one, so no snapshot is ever older than a cadence at a timed
step. Driven through the real scheduler, waiting on state with a timeout (no sleeps)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Heard
from agent_runtime.module import Schedule
from agent_runtime.sched_stats import ModuleStats, SchedulerMetrics
from agent_runtime.scheduling import ModuleRunner
from agent_runtime.state.sections import Perception
from agent_runtime.world import BodyEvent, Observation, Vec3
from modules.perception import PerceptionModule
from tests.core.helpers import wait_until
from tests.modules.helpers import agent_state


class _CountingBody(RecordingBody):
    """Counts the snapshots asked for; each one a little further along x."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.snapshots = 0

    async def observe(self) -> Observation:
        self.snapshots += 1
        return Observation(position=Vec3(x=float(self.snapshots), y=64, z=0))


def _stepped(stats: ModuleStats, steps: int) -> Callable[[], bool]:
    return lambda: stats.triggered + stats.timed > steps


def _chat(n: int) -> BodyEvent:
    return BodyEvent(kind="chat", bot="Ann", data={"sender": "Bob", "message": f"hi {n}"}, at=1.0)


async def test_an_event_step_takes_no_snapshot_within_the_cadence() -> None:
    async with local_services() as svc:
        st = agent_state(svc)
        pm = PerceptionModule(Schedule(cadence=60.0, triggers=frozenset({"topic:event"})))
        body = _CountingBody("Ann")
        ctx = module_context(svc, pm, agent="Ann", body=body)
        heard = svc.bus.subscribe(topics.agent(svc.run_id, "Ann", "heard"))
        await pm.step(ctx)  # a timed step: a snapshot
        assert body.snapshots == 1
        for n, kind in enumerate(("chat", "death")):
            event = _chat(n) if kind == "chat" else BodyEvent(kind="death", bot="Ann", at=2.0)
            await svc.bus.publish(topics.agent(svc.run_id, "Ann", "event"), event)
            ctx.stats.triggered += 1  # as the runner counts a step woken by the event
            await pm.step(ctx)
        assert body.snapshots == 1  # both handled without a snapshot
        msg = heard.get_nowait()
        assert msg is not None and msg.payload == Heard(sender="Bob", message="hi 0", at=1.0)
        per = st.get("perception", Perception)
        assert per.deaths == 1 and per.observation.position == Vec3(x=1, y=64, z=0)
        assert any(m.text == "I died and respawned." for m in ctx.memory)
        await pm.step(ctx)  # the next timed step takes the next snapshot
        assert body.snapshots == 2
        assert st.get("perception", Perception).observation.position == Vec3(x=2, y=64, z=0)


async def test_an_event_step_takes_one_when_the_last_is_a_cadence_old() -> None:
    async with local_services() as svc:
        agent_state(svc)
        pm = PerceptionModule(Schedule(cadence=1e-9, triggers=frozenset({"topic:event"})))
        body = _CountingBody("Ann")
        ctx = module_context(svc, pm, agent="Ann", body=body)
        await pm.step(ctx)
        ctx.stats.triggered += 1
        await pm.step(ctx)
        assert body.snapshots == 2


async def test_timed_steps_each_take_a_snapshot_whatever_the_events() -> None:
    """The scheduler steps perception on its cadence and on a flood of events: the snapshots
    are one per timed step (and none per event step that came within a cadence)."""
    async with local_services() as svc:
        st = agent_state(svc)
        cadence = 0.05
        pm = PerceptionModule(
            Schedule(cadence=cadence, triggers=frozenset({"topic:event"}), min_interval=0.0)
        )
        body = _CountingBody("Ann")
        ctx = module_context(svc, pm, agent="Ann", body=body)
        runner = ModuleRunner(
            pm, ctx, time_scale=1.0, metrics=SchedulerMetrics(), rng=random.Random(1)
        )
        task = asyncio.create_task(runner.run(), name="agent[Ann].perception")
        try:
            n = 0
            while ctx.stats.timed < 6:
                steps = ctx.stats.triggered + ctx.stats.timed
                await svc.bus.publish(topics.agent(svc.run_id, "Ann", "event"), _chat(n))
                n += 1
                await wait_until(_stepped(ctx.stats, steps), 5, "a step")
        finally:
            runner.stop()
            await task
        assert ctx.stats.triggered > ctx.stats.timed  # the events woke it more often
        # one snapshot per timed step, and one more at most for an event step that came
        # when a timed step was late
        assert ctx.stats.timed <= body.snapshots <= ctx.stats.timed + ctx.stats.overruns + 1
        assert st.get("perception", Perception).observation.position is not None
