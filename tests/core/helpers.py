"""Test helpers: wait on conditions with a timeout, never on fixed sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


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
