"""The callers waiting for an LLM request slot, in the order they are served.

By priority (:class:`~agent_runtime.llm.priority.Priority`: lower value first); within a
priority, the caller whose agent was served least recently first; among equals, first come
first served. A waiter is a future the :class:`~agent_runtime.llm.limits.Limiter` resolves
when it grants the slot; a cancelled or timed-out waiter's future is done and no longer
counts.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from dataclasses import dataclass, field

from agent_runtime.llm.priority import Priority

__all__ = ["WaitQueue", "Waiter"]


@dataclass(order=True, slots=True)
class Waiter:
    priority: int
    served: float  # when its agent was last granted a slot (-inf: never)
    seq: int
    future: asyncio.Future[None] = field(compare=False)


class WaitQueue:
    """A heap of :class:`Waiter`; done waiters are skipped and pruned."""

    def __init__(self) -> None:
        self._heap: list[Waiter] = []
        self._seq = itertools.count()

    def push(self, priority: Priority, served: float) -> asyncio.Future[None]:
        """A new waiter; its future is resolved when it is served."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, Waiter(int(priority), served, next(self._seq), future))
        return future

    @property
    def queued(self) -> int:
        return sum(1 for w in self._heap if not w.future.done())

    def ahead(self, priority: Priority, served: float) -> int:
        """Waiters that would be served before a new one of ``priority`` whose agent was last
        served at ``served``."""
        return sum(
            1
            for w in self._heap
            if (w.priority, w.served) <= (priority, served) and not w.future.done()
        )

    def head(self) -> Waiter | None:
        """The next waiter to serve (done ones at the front are dropped), or None."""
        while self._heap:
            waiter = self._heap[0]
            if not waiter.future.done():
                return waiter
            heapq.heappop(self._heap)
        return None

    def pop(self) -> Waiter:
        return heapq.heappop(self._heap)

    def prune(self) -> None:
        """Drop every done waiter."""
        if any(w.future.done() for w in self._heap):
            self._heap = [w for w in self._heap if not w.future.done()]
            heapq.heapify(self._heap)
