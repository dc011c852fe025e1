"""Client-side limits shared by every model of a run.

:class:`Limiter` combines a global concurrency semaphore with two token
buckets (requests per minute, tokens per minute). A caller holds a
:meth:`Limiter.slot` around each HTTP request; waiting for a slot is FIFO (the
buckets are served under one lock, the semaphore queues in order) and bounded
by ``queue_timeout_s``, after which :class:`LLMLimiterTimeout` is raised.

Token use is not known until the reply arrives, so a slot takes an estimate
up front and :meth:`Slot.settle` corrects the bucket afterwards (a bucket may
go into debt, which delays the next callers).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from agent_runtime.llm.errors import LLMLimiterTimeout

__all__ = ["Limiter", "Slot", "TokenBucket"]

logger = logging.getLogger(__name__)


class TokenBucket:
    """Holds up to ``capacity`` units and refills ``rate_per_s`` units per second."""

    def __init__(
        self,
        capacity: float,
        rate_per_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if capacity <= 0 or rate_per_s <= 0:
            raise ValueError("capacity and rate_per_s must be positive")
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


class Slot:
    """One granted request slot; :meth:`settle` reports the real token count."""

    def __init__(self, limiter: Limiter, estimated_tokens: float, waited_s: float) -> None:
        self._limiter = limiter
        self.estimated_tokens = estimated_tokens
        self.waited_s = waited_s
        self._settled = False

    def settle(self, actual_tokens: int) -> None:
        if self._settled:
            return
        self._settled = True
        if self._limiter.tokens is not None:
            self._limiter.tokens.adjust(self.estimated_tokens - actual_tokens)


class Limiter:
    """Global concurrency + RPM + TPM limits for all LLM calls of a run."""

    def __init__(
        self,
        *,
        concurrency: int = 16,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        queue_timeout_s: float = 60.0,
        window_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        if queue_timeout_s <= 0 or window_s <= 0:
            raise ValueError("queue_timeout_s and window_s must be positive")
        self.concurrency = concurrency
        self.queue_timeout_s = queue_timeout_s
        self._sem = asyncio.Semaphore(concurrency)
        self.requests = (
            TokenBucket(requests_per_minute, requests_per_minute / window_s, clock=clock)
            if requests_per_minute
            else None
        )
        self.tokens = (
            TokenBucket(tokens_per_minute, tokens_per_minute / window_s, clock=clock)
            if tokens_per_minute
            else None
        )
        self.in_flight = 0
        self.max_in_flight = 0
        self.granted = 0
        self.timeouts = 0
        self.wait_s_total = 0.0
        self.wait_s_max = 0.0

    @asynccontextmanager
    async def slot(self, estimated_tokens: int = 0) -> AsyncIterator[Slot]:
        """Hold one request slot; raises :class:`LLMLimiterTimeout` if none comes in time."""
        t0 = time.monotonic()
        taken_requests = 0.0
        taken_tokens = 0.0
        acquired = False
        try:
            async with asyncio.timeout(self.queue_timeout_s):
                await self._sem.acquire()
                acquired = True
                if self.requests is not None:
                    taken_requests = await self.requests.take(1)
                if self.tokens is not None:
                    taken_tokens = await self.tokens.take(estimated_tokens)
        except TimeoutError:
            self.timeouts += 1
            if acquired:
                self._sem.release()
            if self.requests is not None and taken_requests:
                self.requests.adjust(taken_requests)
            raise LLMLimiterTimeout(
                f"no LLM slot within {self.queue_timeout_s:g}s "
                f"(concurrency={self.concurrency}, in flight={self.in_flight})"
            ) from None
        except BaseException:
            if acquired:
                self._sem.release()
            raise
        waited = time.monotonic() - t0
        self.granted += 1
        self.wait_s_total += waited
        self.wait_s_max = max(self.wait_s_max, waited)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        slot = Slot(self, taken_tokens, waited)
        try:
            yield slot
        finally:
            self.in_flight -= 1
            self._sem.release()

    def snapshot(self) -> dict[str, Any]:
        return {
            "concurrency": self.concurrency,
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "granted": self.granted,
            "timeouts": self.timeouts,
            "wait_s_total": round(self.wait_s_total, 6),
            "wait_s_max": round(self.wait_s_max, 6),
            "wait_s_mean": round(self.wait_s_total / self.granted, 6) if self.granted else 0.0,
        }
