"""Client-side limits shared by every model of a run.

:class:`Limiter` combines a concurrency limit with two token buckets
(requests per minute, tokens per minute). A caller holds a
:meth:`Limiter.slot` around each HTTP request. Waiting callers are served by
priority (:class:`~agent_runtime.llm.priority.Priority`: the controller
before goals before importance ratings); within a priority, the agent served
least recently goes first (FIFO among equals), so on a slow one-slot server
two agents take turns instead of one of them being shed every time; the token
buckets serve their waiters FIFO.

Before a request goes out it also waits as the endpoint's rate-limit headers say
(:class:`~agent_runtime.llm.pacing.HeaderPacer`: nothing left until the reset, what is left
spread over the time to it, a 429's ``retry-after`` for everyone); the models that send
feed it every reply's headers (``limiter.pacer.observe``).

No caller waits longer than its priority's deadline (and never longer than
``queue_timeout_s``): it is shed with :class:`LLMShed` (``reason="deadline"``)
and its module uses the heuristic. When others of its priority or higher are
already waiting and the queue cannot be served within its deadline at the
measured service time, it is shed at once (``reason="backlog"``): shedding,
not queueing, absorbs an overload. While high-priority requests keep coming
(one asked for, or one finished, within the last service time), the last free slot is kept
for them.

The concurrency limit is either fixed or adaptive
(:class:`~agent_runtime.llm.adaptive.AdaptiveConcurrency`, from latency and
429s, never above ``concurrency``).

Token use is not known until the reply arrives, so a slot takes an estimate
up front and :meth:`Slot.settle` corrects the bucket afterwards (a bucket may
go into debt, which delays the next callers).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from agent_runtime.checks import require_positive
from agent_runtime.llm.adaptive import AdaptiveConcurrency
from agent_runtime.llm.buckets import TokenBucket
from agent_runtime.llm.calls import current_options
from agent_runtime.llm.errors import LLMShed
from agent_runtime.llm.pacing import HeaderPacer
from agent_runtime.llm.priority import Priority, SchedulingPolicy
from agent_runtime.llm.slot import Slot
from agent_runtime.llm.waiters import WaitQueue

__all__ = ["Limiter"]

logger = logging.getLogger(__name__)


class Limiter:
    """Global concurrency + RPM + TPM limits for all LLM calls of a run, served by priority."""

    def __init__(
        self,
        *,
        concurrency: int = 16,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        queue_timeout_s: float = 60.0,
        window_s: float = 60.0,
        policy: SchedulingPolicy | None = None,
        adaptive: bool = False,
        initial_concurrency: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # ``concurrency`` is checked by the AdaptiveConcurrency built from it below
        require_positive(queue_timeout_s=queue_timeout_s, window_s=window_s)
        self.concurrency = concurrency
        self.queue_timeout_s = queue_timeout_s
        self.policy = policy if policy is not None else SchedulingPolicy()
        self.concurrency_control = AdaptiveConcurrency(
            concurrency, enabled=adaptive, initial=initial_concurrency
        )
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
        self._waiters = WaitQueue()
        self.in_flight = 0
        self.max_in_flight = 0
        self.granted = 0
        self.timeouts = 0
        self.shed: Counter[str] = Counter()  # "<priority>:<reason>"
        self.wait_s_total = 0.0
        self.wait_s_max = 0.0
        self.wait_s_max_by_priority: dict[str, float] = {}
        self._watchers: list[tuple[Callable[[Limiter], bool], asyncio.Future[None]]] = []
        self._high_demand_at = float("-inf")
        self._holding: set[Slot] = set()  # slots granted and not yet released
        self._served_at: dict[str, float] = {}  # agent -> when it was last granted a slot
        #: the endpoint's own figures (rate-limit headers), read by the models that send
        self.pacer = HeaderPacer(clock=clock)

    async def wait_for(self, predicate: Callable[[Limiter], bool]) -> None:
        """Wait until ``predicate(limiter)`` holds (tests and tools; bound it with a timeout)."""
        if predicate(self):
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._watchers.append((predicate, future))
        try:
            await future
        finally:
            self._watchers = [(p, f) for p, f in self._watchers if f is not future]

    def _changed(self) -> None:
        for predicate, future in self._watchers:
            if not future.done() and predicate(self):
                future.set_result(None)

    @property
    def limit(self) -> int:
        """Requests allowed in flight now (the adaptive limit, or ``concurrency``)."""
        return self.concurrency_control.effective

    @property
    def queued(self) -> int:
        return self._waiters.queued

    def queued_ahead(self, priority: Priority, served: float = float("inf")) -> int:
        """Waiters that would be served before a new request of ``priority`` whose agent was
        last served at ``served`` (default: just now, behind every waiter of its class)."""
        return self._waiters.ahead(priority, served)

    def _served(self, agent: str) -> float:
        return self._served_at.get(agent, float("-inf")) if agent else float("inf")

    def expected_wait_s(self, priority: Priority, served: float = float("inf")) -> float | None:
        """Estimated wait for a slot for a new request of ``priority`` (None: not known yet)."""
        ahead = self.queued_ahead(priority, served)
        free = self.limit - self.in_flight
        if free > ahead:
            return 0.0
        service = self.concurrency_control.service_s
        if service is None:
            return None
        # we need (ahead - free + 1) slots: the first when the longest-held request in
        # flight is done (a service time after its grant; half of one if none is known),
        # each next one about every service time / limit
        now = time.monotonic()
        held = [now - slot.granted_at for slot in self._holding]
        first = max(0.0, service - max(held)) if held else 0.5 * service
        return first + (ahead - max(free, 0)) * service / self.limit

    def behind(self, priority: Priority) -> bool:
        """True when a new request of ``priority`` would probably miss its deadline."""
        expected = self.expected_wait_s(priority)
        return expected is not None and expected > self._deadline(priority, None)

    def _deadline(self, priority: Priority, deadline_s: float | None) -> float:
        d = self.policy.deadline_s(priority) if deadline_s is None else deadline_s
        return max(0.0, min(d, self.queue_timeout_s))

    def call_slot(
        self, estimated_tokens: int, *, module: str, agent: str
    ) -> AbstractAsyncContextManager[Slot]:
        """:meth:`slot` at the priority and deadline the current call's options set
        (:func:`~agent_runtime.llm.calls.call_options`)."""
        options = current_options()
        return self.slot(
            estimated_tokens,
            module=module,
            priority=options.priority,
            deadline_s=options.deadline_s,
            agent=agent,
        )

    @asynccontextmanager
    async def slot(
        self,
        estimated_tokens: int = 0,
        *,
        module: str = "",
        priority: Priority | None = None,
        deadline_s: float | None = None,
        agent: str = "",
    ) -> AsyncIterator[Slot]:
        """Hold one request slot; raises :class:`LLMShed` if none comes within the deadline.

        ``agent`` (optional) orders waiters of one priority: least recently served first."""
        prio = priority if priority is not None else self.policy.priority(module)
        deadline = self._deadline(prio, deadline_s)
        served = self._served(agent)
        t0 = time.monotonic()
        if prio == Priority.HIGH:
            self._high_demand_at = t0
        if not self._can_grant_now(prio, served):
            # the first in line always waits (up to its deadline) for the next free slot;
            # behind others, it is shed at once when they cannot all be served within its
            # deadline
            ahead = self.queued_ahead(prio, served)
            expected = self.expected_wait_s(prio, served) if ahead else None
            if expected is not None and expected > deadline:
                raise self._shed(prio, "backlog", 0.0, deadline, expected)
            await self._wait_turn(prio, served, deadline, t0)
        else:
            self._take()
        if agent:
            self._served_at[agent] = time.monotonic()
        saturated = self.in_flight >= self.limit
        in_flight = self.in_flight
        taken_requests = 0.0
        taken_tokens = 0.0
        try:
            remaining = max(1e-3, deadline - (time.monotonic() - t0))
            async with asyncio.timeout(remaining):
                if self.requests is not None:
                    taken_requests = await self.requests.take(1)
                if self.tokens is not None:
                    taken_tokens = await self.tokens.take(estimated_tokens)
            paced = await self._pace(estimated_tokens, deadline - (time.monotonic() - t0))
        except TimeoutError:
            self._release()
            if self.requests is not None and taken_requests:
                self.requests.adjust(taken_requests)
            if self.tokens is not None and taken_tokens:
                self.tokens.adjust(taken_tokens)
            raise self._shed(prio, "rate_limit", time.monotonic() - t0, deadline, None) from None
        except BaseException:
            self._release()
            raise
        self.pacer.spend(estimated_tokens, paced)
        waited = time.monotonic() - t0
        self.granted += 1
        self.wait_s_total += waited
        self.wait_s_max = max(self.wait_s_max, waited)
        label = prio.label
        self.wait_s_max_by_priority[label] = max(self.wait_s_max_by_priority.get(label, 0), waited)
        slot = Slot(
            self.tokens,
            self.concurrency_control,
            taken_tokens,
            waited,
            key=module,
            priority=prio,
            saturated=saturated,
            in_flight=in_flight,
        )
        self._holding.add(slot)
        try:
            yield slot
        finally:
            self._holding.discard(slot)
            if prio == Priority.HIGH:
                # a high-priority call in flight is demand too: the reservation runs from
                # its end, or a lower request queued meanwhile would take the slot the moment
                # a long controller call returns, and the next controller call (the other
                # agent's, asked just then) would wait behind it for a whole lower call
                self._high_demand_at = time.monotonic()
            if slot.ok:
                self.concurrency_control.observe(
                    module,
                    time.monotonic() - slot.granted_at,
                    saturated=slot.saturated,
                    in_flight=slot.in_flight_at_grant,
                )
            self._release()

    async def _pace(self, estimated_tokens: float, remaining_s: float) -> float:
        """Wait as the endpoint's rate-limit headers say (:class:`HeaderPacer`); raises
        TimeoutError when that wait would pass the deadline. Returns the seconds waited."""
        waited = 0.0
        while (delay := self.pacer.delay(estimated_tokens)) > 0:
            if waited + delay > remaining_s:
                raise TimeoutError
            await asyncio.sleep(delay)  # paced by the endpoint's figures, not polling
            waited += delay
        return waited

    # --- the queue ----------------------------------------------------------------------

    def _can_grant_now(self, priority: Priority, served: float) -> bool:
        return (
            self.in_flight < self.limit
            and self.queued_ahead(priority, served) == 0
            and not self._reserved_for_high(priority)
        )

    def _reserved_for_high(self, priority: Priority) -> bool:
        """The last free slot is kept for high-priority requests while they keep coming (one
        asked for or finished within a service time).

        A lower-priority request that took it would hold it for a whole call while the
        next controller request waits; with one slot, that is every slot.
        """
        if priority == Priority.HIGH or self.limit - self.in_flight > 1:
            return False
        return time.monotonic() - self._high_demand_at < self._reserve_window()

    def _reserve_window(self) -> float:
        """How long high-priority demand keeps the last slot: a service time (none until
        one is measured)."""
        return self.concurrency_control.service_s or 0.0

    def _take(self) -> None:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self._changed()

    def _release(self) -> None:
        self.in_flight -= 1
        self._dispatch()
        self._changed()

    def _dispatch(self) -> None:
        while self.in_flight < self.limit and (waiter := self._waiters.head()) is not None:
            if self._reserved_for_high(Priority(waiter.priority)):
                # it waits on (up to its deadline); look again when the reservation lapses
                lapse = self._high_demand_at + self._reserve_window() - time.monotonic()
                delay = max(0.0, lapse) + 1e-3
                asyncio.get_running_loop().call_later(delay, self._dispatch)
                return
            self._waiters.pop()
            self._take()
            waiter.future.set_result(None)

    async def _wait_turn(
        self, priority: Priority, served: float, deadline: float, t0: float
    ) -> None:
        future = self._waiters.push(priority, served)
        self._changed()
        # nothing may be in flight to release a slot (e.g. one free slot kept for the
        # controller): dispatch now, which also looks again when that reservation lapses
        self._dispatch()
        try:
            async with asyncio.timeout(deadline):
                await future
        except TimeoutError:
            if future.done() and not future.cancelled():
                self._release()  # granted just as the deadline passed: give it back
            raise self._shed(priority, "deadline", time.monotonic() - t0, deadline, None) from None
        except BaseException:
            if future.done() and not future.cancelled():
                self._release()
            else:
                future.cancel()
            raise
        finally:
            self._waiters.prune()

    def _shed(
        self,
        priority: Priority,
        reason: str,
        waited: float,
        deadline: float,
        expected: float | None,
    ) -> LLMShed:
        self.timeouts += 1
        self.shed[f"{priority.label}:{reason}"] += 1
        why = (
            f"expected wait {expected:.1f}s > deadline {deadline:g}s"
            if expected is not None
            else f"waited {waited:.1f}s, deadline {deadline:g}s"
        )
        return LLMShed(
            f"no LLM slot for a {priority.label}-priority request ({reason}: {why}; "
            f"limit={self.limit}, in flight={self.in_flight}, queued={self.queued})",
            reason=reason,
            priority=priority.label,
            waited_s=waited,
        )

    def snapshot(self) -> dict[str, Any]:
        return {
            "concurrency": self.concurrency,
            "limit": self.limit,
            "in_flight": self.in_flight,
            "queued": self.queued,
            "max_in_flight": self.max_in_flight,
            "granted": self.granted,
            "timeouts": self.timeouts,
            "shed": dict(sorted(self.shed.items())),
            "wait_s_total": round(self.wait_s_total, 6),
            "wait_s_max": round(self.wait_s_max, 6),
            "wait_s_mean": round(self.wait_s_total / self.granted, 6) if self.granted else 0.0,
            "wait_s_max_by_priority": {
                k: round(v, 4) for k, v in sorted(self.wait_s_max_by_priority.items())
            },
            "deadlines_s": {p.label: self.policy.deadline_s(p) for p in Priority},
            "adaptive": self.concurrency_control.snapshot(),
            "rate_headers": self.pacer.snapshot(),
        }
