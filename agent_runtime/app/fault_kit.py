"""What the fault suites share: the result of one fault, the suite's agents, a bounded wait,
the injection of one fault into a running village."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["AGENTS", "FaultResult", "checked", "inject", "until"]

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


async def inject(
    v: Any,
    name: str,
    fault: Callable[[], Awaitable[None]],
    restarted: Callable[[], bool],
    window: float,
) -> FaultResult:
    """Wait for a healthy village, inject ``fault``, then wait until ``restarted()`` and the
    village decides again (``recovered``, ``seconds_to_recover``, counts in the window)."""
    result = FaultResult(name)
    counts = v.events.counts
    await until(lambda: counts["decision"] >= 3, window)  # healthy first
    d0, e0 = counts["decision"], counts["module_error"]
    try:
        await fault()
    except Exception as err:  # the fault could not be injected: reported, not recovered
        result.detail["error"] = f"{type(err).__name__}: {err}"
        return result
    took = await until(lambda: restarted() and counts["decision"] > d0 + 2, window)
    result.recovered = took is not None
    result.seconds_to_recover = took
    result.decisions_in_window = counts["decision"] - d0
    result.errors_in_window = counts["module_error"] - e0
    return result


def checked(result: FaultResult, checks: dict[str, bool]) -> FaultResult:
    """Record the data-path checks; a fault whose data path did not come back is not recovered."""
    result.detail["data_path"] = checks
    result.recovered = result.recovered and all(checks.values())
    return result
