"""What the fault suites share: the result of one fault, the suite's agents, a bounded wait."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["AGENTS", "FaultResult", "until"]

AGENTS = ("Ann", "Bob", "Cleo")


@dataclass
class FaultResult:
    fault: str
    recovered: bool = False
    seconds_to_recover: float | None = None
    decisions_in_window: int = 0
    errors_in_window: int = 0
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "fault": self.fault,
            "recovered": self.recovered,
            "seconds_to_recover": None
            if self.seconds_to_recover is None
            else round(self.seconds_to_recover, 2),
            "decisions_in_window": self.decisions_in_window,
            "errors_in_window": self.errors_in_window,
            **self.detail,
        }


async def until(cond: Callable[[], bool], limit: float) -> float | None:
    """Seconds until ``cond()`` held, or None after ``limit``."""
    t0 = time.monotonic()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limit):
            while not cond():  # noqa: ASYNC110 - the village's counters, changed by its tasks
                await asyncio.sleep(0.05)
            return time.monotonic() - t0
    return None
