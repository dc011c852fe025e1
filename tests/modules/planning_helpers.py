"""What the planning tests share: a clock moved by hand, a perception, a planner on local
services."""

from __future__ import annotations

import contextlib
from typing import Any

from agent_runtime.agent_services import AgentServices
from agent_runtime.app.testing import local_services, module_context
from agent_runtime.clock import Clock
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Goals, Identity, Perception
from agent_runtime.world import NotableBlock, Observation, Vec3
from modules.planning import Planning
from tests.modules.helpers import agent_state

__all__ = ["HOUR_S", "T0", "StepClock", "close", "planner", "seeing"]

T0 = 1_000_000.0
HOUR_S = 50.0  # one game hour in clock seconds (0.02 game hours a second, time scale 1)


class StepClock(Clock):
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        super().__init__(started=T0)
        self.t = T0

    def now(self) -> float:
        return self.t

    def game_hours(self, at: float | None = None) -> float:
        t = self.t if at is None else at
        return (t - self.started) * self.game_hours_per_second / self.time_scale


def seeing(*blocks: str, inventory: dict[str, int] | None = None) -> Perception:
    return Perception(
        observation=Observation(
            inventory=inventory or {},
            blocks=tuple(
                NotableBlock(name=b, position=Vec3(x=3, y=64, z=3), distance=4.0) for b in blocks
            ),
        )
    )


#: the services of each planner's context, closed by ``close``
_OPEN: dict[int, contextlib.AbstractAsyncContextManager[AgentServices]] = {}


async def planner(**sections: Any) -> tuple[Any, Any, StepClock, Planning]:
    svc_cm = local_services()
    svc = await svc_cm.__aenter__()
    sections.setdefault("goals", Goals(current="gather wood", kind="gather_wood"))
    sections.setdefault("identity", Identity(name="Ann", traits=("You love the forest.",)))
    st = agent_state(svc, **sections)
    pl = Planning(Schedule(cadence=60.0))
    ctx = module_context(svc, pl, agent="Ann")
    clock = StepClock()
    ctx.clock = clock
    _OPEN[id(ctx)] = svc_cm
    return st, ctx, clock, pl


async def close(ctx: Any) -> None:
    await _OPEN.pop(id(ctx)).__aexit__(None, None, None)
