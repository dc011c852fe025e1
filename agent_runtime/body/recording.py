"""A body that records skill calls and answers with scripted outcomes (for tests)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from agent_runtime.clock import wall_time
from agent_runtime.interfaces import Body
from agent_runtime.world import BodyEvent, Observation, SkillCall, SkillOutcome, Vec3


class RecordingBody(Body):
    def __init__(
        self,
        name: str,
        observation: Observation | None = None,
        outcome: Callable[[SkillCall], SkillOutcome] | None = None,
    ) -> None:
        self.name = name
        self.observation = observation or Observation(position=Vec3(x=0, y=64, z=0))
        self.calls: list[SkillCall] = []
        self._outcome = outcome
        self.events_queue: asyncio.Queue[BodyEvent] = asyncio.Queue(maxsize=256)

    async def observe(self) -> Observation:
        return self.observation

    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        self.calls.append(call)
        if self._outcome is not None:
            return self._outcome(call)
        now = wall_time()
        return SkillOutcome(skill=call.skill, success=True, started_at=now, ended_at=now)

    async def cancel_skill(self) -> None:
        return None

    async def events(self) -> AsyncIterator[BodyEvent]:
        while True:
            yield await self.events_queue.get()
