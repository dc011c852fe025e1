"""Protocol seconds <-> wall clock for one run of an experiment.

Protocol times are in protocol seconds; :class:`Timeline` maps them to wall time with
``--time-scale`` (which also scales the modules' cadences, so a scaled run is the same run,
faster). A :data:`Protocol` is what an experiment does to a running village on its timeline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_runtime.app.village import Village


class Timeline:
    """Protocol seconds <-> wall clock for one run (``scale`` wall seconds per protocol s)."""

    def __init__(self, scale: float, start: float | None = None) -> None:
        if scale <= 0:
            raise ValueError("scale must be positive")
        self.scale = scale
        self.start = time.time() if start is None else start

    def now(self) -> float:
        """Protocol seconds since the start."""
        return (time.time() - self.start) / self.scale

    def since_start(self, wall: float) -> float:
        """Protocol second of wall-clock time ``wall``; 0 for a time before the start (the
        agents start before the clock: what they did meanwhile is held at t = 0)."""
        return max(0.0, (wall - self.start) / self.scale)

    def wall(self, t: float) -> float:
        """Wall-clock (unix) time of protocol second ``t``."""
        return self.start + t * self.scale

    def seconds(self, t: float) -> float:
        """A protocol duration in wall seconds."""
        return t * self.scale

    async def until(self, t: float) -> None:
        """Return at protocol second ``t`` (at once if it has passed)."""
        delay = self.wall(t) - time.time()
        if delay > 0:
            await asyncio.sleep(delay)


Protocol = Callable[["Village", Timeline], Coroutine[Any, Any, None]]
