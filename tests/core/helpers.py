"""Test helpers: wait on conditions with a timeout, never on fixed sleeps; a manual clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from agent_runtime.clock import Clock


async def wait_until(
    cond: Callable[[], bool], limit: float = 10.0, what: str = "condition"
) -> None:
    """Yield to the loop until ``cond()`` holds; fail after ``limit`` seconds."""
    try:
        async with asyncio.timeout(limit):
            while not cond():  # noqa: ASYNC110 - polls state other tasks change
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"timed out after {limit}s waiting for {what}") from None


async def wait_until_async(
    cond: Callable[[], Awaitable[bool]], limit: float = 10.0, what: str = "condition"
) -> None:
    """Like :func:`wait_until` for a condition that must be awaited (e.g. a bridge call)."""
    try:
        async with asyncio.timeout(limit):
            while not await cond():  # noqa: ASYNC110 - the condition is a bridge call
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"timed out after {limit}s waiting for {what}") from None


class ManualClock(Clock):
    """The tests' one clock that moves only when a test says so: ``t`` is now (set it, or
    ``advance``). Calling it gives ``t`` too, for what takes a plain ``() -> float`` clock
    (the circuit breaker in seconds, a memory stream in game hours)."""

    def __init__(self, t: float = 0.0) -> None:
        super().__init__(time_scale=1.0, started=t)
        self.t = t

    def __call__(self) -> float:
        return self.t

    def now(self) -> float:
        return self.t

    def elapsed(self) -> float:
        return self.t - self.started

    def game_hours(self, at: float | None = None) -> float:
        return ((self.t if at is None else at) - self.started) * self.game_hours_per_second

    def advance(self, seconds: float) -> None:
        self.t += seconds
