"""The one clock of a run: wall time, protocol time (scaled) and game hours.

Modules read time only through the :class:`Clock` their context holds (``ctx.clock``), so
a run's time scale applies everywhere and tests can reason about it. *Protocol seconds*
are the seconds of an experiment's protocol (the paper's timeline); with ``time_scale``
0.5 one protocol second lasts half a wall second.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field


def wall_time() -> float:
    """Unix time now: the one place the runtime reads the wall clock (a run's :class:`Clock`
    and every timestamp outside one come from here)."""
    return time.time()


@dataclass
class Clock:
    """``time_scale`` < 1 speeds everything up (cadences and protocol times are multiplied by it)."""

    time_scale: float = 1.0
    game_hours_per_second: float = 0.02
    started: float = field(default_factory=wall_time)

    def now(self) -> float:
        return wall_time()

    def elapsed(self) -> float:
        return wall_time() - self.started

    def game_hours(self, at: float | None = None) -> float:
        """Game hours since the run started at wall time ``at`` (default: now)."""
        t = wall_time() if at is None else at
        return (t - self.started) * self.game_hours_per_second / self.time_scale

    def scaled(self, seconds: float) -> float:
        """A protocol duration in wall seconds."""
        return seconds * self.time_scale

    def protocol(self) -> float:
        """Protocol seconds since the run started."""
        return self.elapsed() / self.time_scale

    def since_start(self, wall: float) -> float:
        """Protocol second of wall-clock time ``wall``; 0 for a time before the start (an
        experiment's agents start before its protocol clock: what they did meanwhile is held
        at t = 0)."""
        return max(0.0, (wall - self.started) / self.time_scale)

    def wall(self, t: float) -> float:
        """Wall-clock (unix) time of protocol second ``t``."""
        return self.started + t * self.time_scale

    async def until(self, t: float) -> None:
        """Return at protocol second ``t`` (at once if it has passed)."""
        delay = self.wall(t) - wall_time()
        if delay > 0:
            await asyncio.sleep(delay)
