"""A token bucket: the requests-per-minute and tokens-per-minute limits of a run.

A bucket serves its waiters FIFO and may go into debt (:meth:`TokenBucket.adjust` with the
real token count after a reply), which delays the next callers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from agent_runtime.checks import require_positive

__all__ = ["TokenBucket"]


class TokenBucket:
    """Holds up to ``capacity`` units and refills ``rate_per_s`` units per second."""

    def __init__(
        self,
        capacity: float,
        rate_per_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        require_positive(capacity=capacity, rate_per_s=rate_per_s)
        self.capacity = float(capacity)
        self.rate_per_s = float(rate_per_s)
        self._clock = clock
        self._level = self.capacity
        self._stamp = clock()
        self._lock = asyncio.Lock()  # FIFO: the head waiter sleeps while holding it

    @property
    def level(self) -> float:
        self._refill()
        return self._level

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate_per_s)
        self._stamp = now

    async def take(self, amount: float) -> float:
        """Wait until ``amount`` units are available and remove them; returns what was taken.

        Amounts above the capacity are clamped to it, so one huge request cannot
        wait forever.
        """
        amount = min(max(0.0, float(amount)), self.capacity)
        async with self._lock:
            while True:
                self._refill()
                if self._level >= amount:
                    self._level -= amount
                    return amount
                await asyncio.sleep((amount - self._level) / self.rate_per_s)

    def adjust(self, delta: float) -> None:
        """Give back (``delta > 0``) or charge extra (``delta < 0``); may go negative."""
        self._refill()
        self._level = min(self.capacity, self._level + delta)
