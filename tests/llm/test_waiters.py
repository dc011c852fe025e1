"""The queue of callers waiting for an LLM slot: priority first, then the agent served least
recently, then arrival; a done (cancelled, timed-out) waiter no longer counts."""

from __future__ import annotations

from agent_runtime.llm.priority import Priority
from agent_runtime.llm.waiters import WaitQueue


async def test_served_by_priority_then_least_recently_served_agent_then_arrival() -> None:
    queue = WaitQueue()
    late = queue.push(Priority.NORMAL, served=5.0)
    never = queue.push(Priority.NORMAL, served=float("-inf"))
    second = queue.push(Priority.NORMAL, served=5.0)
    high = queue.push(Priority.HIGH, served=9.0)
    order = []
    while (waiter := queue.head()) is not None:
        queue.pop()
        order.append(waiter.future)
    assert order == [high, never, late, second]


async def test_ahead_counts_those_served_before_a_newcomer() -> None:
    queue = WaitQueue()
    queue.push(Priority.NORMAL, served=1.0)
    queue.push(Priority.NORMAL, served=5.0)
    queue.push(Priority.HIGH, served=9.0)
    queue.push(Priority.LOW, served=0.0)
    assert queue.ahead(Priority.NORMAL, 3.0) == 2  # the high one and the one served at 1
    assert queue.ahead(Priority.NORMAL, float("inf")) == 3  # just served: behind its class
    assert queue.ahead(Priority.HIGH, float("-inf")) == 0


async def test_done_waiters_no_longer_count_and_are_skipped() -> None:
    queue = WaitQueue()
    first = queue.push(Priority.HIGH, served=0.0)
    second = queue.push(Priority.HIGH, served=1.0)
    first.cancel()
    assert queue.queued == 1
    assert queue.ahead(Priority.LOW, 0.0) == 1
    head = queue.head()
    assert head is not None and head.future is second
    second.cancel()
    queue.prune()
    assert queue.head() is None and queue.queued == 0
