"""Run time: wall seconds since the run started and the matching game hours."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Clock:
    """``time_scale`` < 1 speeds everything up (cadences and protocol times are multiplied by it)."""

    time_scale: float = 1.0
    game_hours_per_second: float = 0.02
    started: float = field(default_factory=time.time)

    def now(self) -> float:
        return time.time()

    def elapsed(self) -> float:
        return time.time() - self.started

    def game_hours(self, at: float | None = None) -> float:
        """Game hours since the run started at wall time ``at`` (default: now)."""
        t = time.time() if at is None else at
        return (t - self.started) * self.game_hours_per_second / self.time_scale

    def scaled(self, seconds: float) -> float:
        return seconds * self.time_scale
