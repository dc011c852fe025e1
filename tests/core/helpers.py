"""Test helpers: wait on conditions with a timeout, never on fixed sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def wait_until(cond: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Yield to the loop until ``cond()`` holds; fail after ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not cond():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout}s waiting for {what}") from None
