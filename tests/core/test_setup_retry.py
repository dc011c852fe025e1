"""A module's first ``setup`` that times out (a thousand agents starting at once) is retried;
one that fails otherwise is disabled at once (tests/core/test_scheduling.py)."""

from __future__ import annotations

import random
from typing import ClassVar

from agent_runtime.agent import Agent
from agent_runtime.app.testing import agent_spec, local_services
from agent_runtime.body.null import NullBody
from agent_runtime.module import Module, Schedule
from agent_runtime.module_context import ModuleContext
from agent_runtime.scheduling import SETUP_RETRIES
from tests.core.helpers import wait_until


class SlowStart(Module):
    name: ClassVar[str] = "slow_start"

    def __init__(self, schedule: Schedule, timeouts: int) -> None:
        super().__init__(schedule)
        self.timeouts = timeouts
        self.setups = 0
        self.steps = 0

    async def setup(self, ctx: ModuleContext) -> None:
        self.setups += 1
        if self.setups <= self.timeouts:
            raise TimeoutError("redis round trip timed out")

    async def step(self, ctx: ModuleContext) -> None:
        self.steps += 1


async def test_a_setup_that_times_out_is_retried_then_the_module_runs() -> None:
    async with local_services() as svc:
        mod = SlowStart(Schedule(cadence=0.01), timeouts=2)
        async with Agent(agent_spec(), [mod], NullBody("Ann"), svc, random.Random(1)):
            await wait_until(lambda: mod.steps >= 3, 10, "the module stepping after retries")
        assert mod.setups == 3
        assert svc.events.counts.get("module_disabled", 0) == 0


async def test_a_setup_that_keeps_timing_out_disables_the_module() -> None:
    async with local_services() as svc:
        svc.clock.time_scale = 0.01  # short backoffs
        mod = SlowStart(Schedule(cadence=0.01), timeouts=SETUP_RETRIES + 1)
        async with Agent(agent_spec(), [mod], NullBody("Ann"), svc, random.Random(1)) as agent:
            await wait_until(lambda: agent.tasks["slow_start"].done(), 10, "the module to stop")
        assert mod.setups == SETUP_RETRIES + 1 and mod.steps == 0
        assert svc.events.counts["module_disabled"] == 1
