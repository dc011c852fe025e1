"""A body with no world behind it (``--world none``): measures the runtime on its own.

Observations are a fixed empty scene; every skill returns with ``success=False`` and the
reason "no world attached", so grounding modules see honestly that nothing changed: at once,
or after ``skill_seconds`` (each drawn from 0.5x-1.5x of it, ``world.null_skill_seconds``)
so that a benchmark's controllers react at a skill's pace. Chat and whisper succeed at once
(there is nobody to hear).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

from agent_runtime.clock import wall_time
from agent_runtime.interfaces import Body
from agent_runtime.world import BodyEvent, Observation, SkillCall, SkillOutcome, Vec3


class NullBody(Body):
    def __init__(self, name: str, spawn: Vec3 | None = None, *, skill_seconds: float = 0.0) -> None:
        self.name = name
        self.skill_seconds = skill_seconds
        self._rng = random.Random(name)
        self._position = spawn or Vec3(x=0, y=64, z=0)
        self._events: asyncio.Queue[BodyEvent] = asyncio.Queue(maxsize=1)
        self.skills_run = 0

    async def observe(self) -> Observation:
        return Observation(position=self._position)

    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        self.skills_run += 1
        now = wall_time()
        ok = call.skill in ("chat", "whisper", "idle")
        if call.skill == "idle":
            await asyncio.sleep(float(call.args.get("seconds", 5.0)))
        elif not ok and self.skill_seconds > 0:
            await asyncio.sleep(self.skill_seconds * self._rng.uniform(0.5, 1.5))
        return SkillOutcome(
            skill=call.skill,
            success=ok,
            reason="" if ok else "no world attached (no-op body)",
            position=self._position,
            started_at=now,
            ended_at=now,
        )

    async def cancel_skill(self) -> None:
        return None

    async def events(self) -> AsyncIterator[BodyEvent]:
        while True:
            yield await self._events.get()
