"""Small asyncio task helpers shared by the core, the assembly and the bodies."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

__all__ = ["cancel_and_wait"]


async def cancel_and_wait(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` and wait until it has finished (its cancellation is not an error)."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
