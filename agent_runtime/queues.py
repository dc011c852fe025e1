"""Bounded ``asyncio.Queue`` helpers: the "drop the oldest when full" policy and polling."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TypeVar

__all__ = ["get_or_none", "put_dropping_oldest", "until_closed"]

T = TypeVar("T")


def put_dropping_oldest(queue: asyncio.Queue[T], item: T) -> bool:
    """Put ``item``; a full queue first drops its oldest item. True when one was dropped."""
    dropped = queue.full()
    if dropped:
        queue.get_nowait()
    queue.put_nowait(item)
    return dropped


def get_or_none(queue: asyncio.Queue[T]) -> T | None:
    """The oldest item of ``queue``, or None when it is empty (for polling consumers)."""
    try:
        return queue.get_nowait()
    except asyncio.QueueEmpty:
        return None


async def until_closed(queue: asyncio.Queue[T | None]) -> AsyncIterator[T]:
    """The items of ``queue`` as they arrive, until a None closes it."""
    while (item := await queue.get()) is not None:
        yield item
