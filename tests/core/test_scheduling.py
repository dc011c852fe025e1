"""Module scheduling: cadence, triggers (state and bus), crash-restart without killing the agent."""

from __future__ import annotations

import asyncio
import random
from typing import Any, ClassVar

from agent_runtime.agent import Agent
from agent_runtime.app.testing import agent_spec, local_services
from agent_runtime.body.null import NullBody
from agent_runtime.bus.messages import DECISION, GoalChange
from agent_runtime.module import Module, Schedule
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Decision, Goals
from tests.core.helpers import wait_until


class Ticker(Module):
    name: ClassVar[str] = "ticker"

    def __init__(self, schedule: Schedule) -> None:
        super().__init__(schedule)
        self.times: list[float] = []  # each step's start (the loop's clock)
        self.dues: list[float] = []  # and the time it was due

    async def step(self, ctx: ModuleContext) -> None:
        self.times.append(asyncio.get_running_loop().time())
        self.dues.append(ctx.due)


class Writer(Module):
    name: ClassVar[str] = "goal_generation"
    writes: ClassVar[frozenset[str]] = frozenset({"goals"})

    async def step(self, ctx: ModuleContext) -> None:
        ctx.write("goals", Goals(current=f"goal {ctx.stats.steps}"))


class Watcher(Module):
    name: ClassVar[str] = "planning"
    reads: ClassVar[frozenset[str]] = frozenset({"goals"})

    def __init__(self, schedule: Schedule) -> None:
        super().__init__(schedule)
        self.seen: list[str] = []
        self.messages: list[Decision] = []

    async def step(self, ctx: ModuleContext) -> None:
        self.seen.append(ctx.read("goals", Goals).current)
        self.messages += ctx.pending(DECISION)


class Flaky(Module):
    name: ClassVar[str] = "flaky"

    def __init__(self, schedule: Schedule, fail_times: int) -> None:
        super().__init__(schedule)
        self.fail_times = fail_times
        self.calls = 0
        self.setups = 0

    async def setup(self, ctx: ModuleContext) -> None:
        self.setups += 1

    async def step(self, ctx: ModuleContext) -> None:
        self.calls += 1
        if self.calls <= self.fail_times:
            raise RuntimeError(f"boom {self.calls}")


async def test_cadence_is_kept() -> None:
    async with local_services() as svc:
        tick = Ticker(Schedule(cadence=0.05))
        async with Agent(agent_spec(), [tick], NullBody("Ann"), svc, random.Random(1)) as agent:
            assert agent.tasks["ticker"].get_name() == "agent[Ann].ticker"
            await wait_until(lambda: len(tick.times) >= 11, 5, "11 ticks")
        cadence = 0.05
        # steps are due on a fixed grid from the first (a late step does not push the next
        # ones back, a step that fell behind does not burst to catch up) ...
        off_grid = [
            (k, due - tick.dues[0])
            for k, due in enumerate(tick.dues)
            if abs(due - tick.dues[0] - k * cadence) > 1e-6
        ]
        assert off_grid == [], tick.dues
        # ... and no step starts before its due time, on any machine (asyncio runs a timer
        # up to its clock's resolution, 1 ns here, before it is due)
        starts = zip(tick.times, tick.dues, strict=True)
        early = [(k, t - due) for k, (t, due) in enumerate(starts) if t < due - 1e-6]
        assert early == [], (tick.times, tick.dues)
        # the mean gap is the cadence, as a ratio with room for a busy machine (how late
        # single steps start is measured as lags, a benchmark's business to bound)
        mean = (tick.times[-1] - tick.times[1]) / (len(tick.times) - 2)
        assert 0.8 <= mean / cadence <= 1.6, tick.times
        assert len(svc.metrics.lags_ms) >= 10


async def test_state_and_bus_triggers_wake_modules() -> None:
    async with local_services() as svc:
        writer = Writer(Schedule(cadence=None, triggers=frozenset({"topic:goal"})))
        watcher = Watcher(
            Schedule(cadence=None, triggers=frozenset({"state:goals", "topic:decision"}))
        )
        async with Agent(agent_spec(), [writer, watcher], NullBody("Ann"), svc, random.Random(1)):
            await svc.bus.publish(f"piano/{svc.run_id}/agent/Ann/goal", GoalChange(goal="poke"))
            await wait_until(lambda: "goal 0" in watcher.seen, 5, "state trigger")
            farm = Decision(intent="farm")
            await svc.bus.publish(f"piano/{svc.run_id}/agent/Ann/decision", farm)
            await wait_until(lambda: watcher.messages == [farm], 5, "bus trigger")
            # a message for another agent does not wake Ann's modules
            steps = watcher.seen.copy()
            await svc.bus.publish(f"piano/{svc.run_id}/agent/Bob/decision", Decision(intent="mine"))
            await asyncio.sleep(0)
            assert watcher.seen == steps


async def test_failing_module_is_restarted_and_others_keep_running() -> None:
    async with local_services(time_scale=0.01) as svc:  # backoff scaled down
        flaky = Flaky(Schedule(cadence=0.01), fail_times=3)
        tick = Ticker(Schedule(cadence=0.01))
        async with Agent(
            agent_spec(), [flaky, tick], NullBody("Ann"), svc, random.Random(1)
        ) as agent:
            await wait_until(lambda: flaky.calls >= 6, 10, "flaky recovered")
            assert not agent.tasks["flaky"].done()
            ticks = len(tick.times)
            await wait_until(lambda: len(tick.times) > ticks + 3, 5, "ticker alive")
        stats = svc.metrics.stats["flaky"][0]
        assert stats.errors == 3 and stats.restarts == 3 and flaky.setups == 4
        assert svc.events.counts["module_error"] == 3


class BrokenSetup(Module):
    name: ClassVar[str] = "broken"

    async def setup(self, ctx: ModuleContext) -> None:
        raise OSError("cannot open its model file")

    async def step(self, ctx: ModuleContext) -> None:  # pragma: no cover - never reached
        raise AssertionError("a module whose setup failed must not step")


async def test_a_module_that_cannot_start_is_disabled_not_the_agent() -> None:
    async with local_services() as svc:
        tick = Ticker(Schedule(cadence=0.01))
        broken = BrokenSetup(Schedule(cadence=0.01))
        async with Agent(
            agent_spec(), [broken, tick], NullBody("Ann"), svc, random.Random(1)
        ) as agent:
            await wait_until(lambda: agent.tasks["broken"].done(), 5, "the broken module to stop")
            assert agent.tasks["broken"].exception() is None
            ticks = len(tick.times)
            await wait_until(lambda: len(tick.times) > ticks + 3, 5, "the agent going on")
        assert svc.events.counts["module_disabled"] == 1
        assert svc.metrics.stats["broken"][0].steps == 0


async def test_module_state_is_checkpointed_and_restored(run_id: str) -> None:
    import fakeredis

    class Counter(Module):
        name: ClassVar[str] = "counter"

        def __init__(self, schedule: Schedule) -> None:
            super().__init__(schedule)
            self.n = 0

        async def step(self, ctx: ModuleContext) -> None:
            self.n += 1

        def get_state(self) -> dict[str, Any]:
            return {"n": self.n}

        def set_state(self, state: Any) -> None:
            self.n = int(state["n"])

    server = fakeredis.FakeServer()
    async with local_services(run_id=run_id, redis=fakeredis.FakeAsyncRedis(server=server)) as svc:
        c = Counter(Schedule(cadence=0.01))
        async with Agent(agent_spec(), [c], NullBody("Ann"), svc, random.Random(1)):
            await wait_until(lambda: c.n >= 5, 5)
        saved = c.n
    async with local_services(run_id=run_id, redis=fakeredis.FakeAsyncRedis(server=server)) as svc:
        c2 = Counter(Schedule(cadence=None))
        async with Agent(agent_spec(), [c2], NullBody("Ann"), svc, random.Random(1)):
            assert c2.n == saved


class Swallower(Module):
    """A step that swallows a cancel and returns, as redis-py 8.1 does when a cancel lands
    inside a command it then retries."""

    name: ClassVar[str] = "swallower"

    def __init__(self, schedule: Schedule) -> None:
        super().__init__(schedule)
        self.entered = asyncio.Event()
        self.swallowed = 0

    async def step(self, ctx: ModuleContext) -> None:
        self.entered.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.swallowed += 1


async def test_a_step_that_swallows_a_cancel_still_stops() -> None:
    async with local_services() as svc:
        mod = Swallower(Schedule(cadence=0.01))
        agent = Agent(agent_spec(), [mod], NullBody("Ann"), svc, random.Random(1))
        async with agent:
            await asyncio.wait_for(mod.entered.wait(), 5)
            task = agent.tasks["swallower"]
            task.cancel()
            # without the runner's check the loop steps on and swallows every later cancel
            await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 5)
            assert task.cancelled()
            assert mod.swallowed == 1
