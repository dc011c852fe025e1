"""Concurrency, RPM and TPM limits (real time, small windows, generous bounds)."""

from __future__ import annotations

import asyncio
import time

import pytest

from agent_runtime.llm import (
    FakeOpenAIServer,
    FakeReply,
    Limiter,
    LLMLimiterTimeout,
    RecordedRequest,
    TokenBucket,
)
from agent_runtime.llm.priority import Priority

from .conftest import PLAN, ModelFactory, plan_request


async def test_concurrency_limit_at_the_server(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    release = asyncio.Event()

    async def held(_: RecordedRequest) -> FakeReply:
        await release.wait()
        return FakeReply.json(PLAN)

    server.default = held
    limiter = Limiter(concurrency=3)
    model = make_model(limiter=limiter)
    tasks = [asyncio.create_task(model.complete(plan_request(f"a{i}"))) for i in range(10)]
    async with asyncio.timeout(5):
        await server.wait_for_in_flight(3)
    # the other seven are queued in the limiter, not at the server
    for _ in range(20):
        await asyncio.sleep(0)
    assert server.in_flight == 3
    assert limiter.in_flight == 3
    release.set()
    results = await asyncio.gather(*tasks)
    assert len(results) == 10
    assert server.max_in_flight == 3
    assert limiter.max_in_flight == 3
    assert limiter.granted == 10


async def test_rpm_bucket_spaces_requests() -> None:
    # 5 requests per 0.5 s window = 10/s with a burst of 5: 12 requests need >= 0.7 s
    limiter = Limiter(concurrency=100, requests_per_minute=5, window_s=0.5)
    t0 = time.monotonic()

    async def one() -> None:
        async with limiter.slot():
            pass

    async with asyncio.timeout(5):
        await asyncio.gather(*(one() for _ in range(12)))
    elapsed = time.monotonic() - t0
    assert 0.55 <= elapsed < 3.0


async def test_tpm_bucket_charges_real_usage() -> None:
    limiter = Limiter(concurrency=10, tokens_per_minute=100, window_s=1.0)
    assert limiter.tokens is not None
    async with limiter.slot(estimated_tokens=10) as slot:
        slot.settle(60)  # the call used more than estimated: the bucket pays the difference
    assert limiter.tokens.level == pytest.approx(40, abs=5)
    t0 = time.monotonic()
    async with asyncio.timeout(5), limiter.slot(estimated_tokens=90):
        pass
    # ~50 tokens short at 100 tokens/s: it waited for them (the bound above is the wait's own
    # timeout, not a speed)
    assert time.monotonic() - t0 >= 0.3


async def test_oversized_request_is_clamped_not_stuck() -> None:
    bucket = TokenBucket(capacity=10, rate_per_s=1000)
    async with asyncio.timeout(2):
        assert await bucket.take(1_000_000) == 10


async def test_bucket_is_fifo() -> None:
    bucket = TokenBucket(capacity=1, rate_per_s=50)
    await bucket.take(1)
    order: list[int] = []

    async def taker(i: int, amount: float) -> None:
        await bucket.take(amount)
        order.append(i)

    # a big request queued first is not overtaken by later small ones
    tasks = [asyncio.create_task(taker(0, 1))]
    await asyncio.sleep(0)
    tasks += [asyncio.create_task(taker(i, 0.1)) for i in range(1, 4)]
    async with asyncio.timeout(5):
        await asyncio.gather(*tasks)
    assert order == [0, 1, 2, 3]


async def test_queue_timeout_raises_and_releases() -> None:
    limiter = Limiter(concurrency=1, queue_timeout_s=0.1)
    hold = asyncio.Event()
    entered = asyncio.Event()

    async def holder() -> None:
        async with limiter.slot():
            entered.set()
            await hold.wait()

    task = asyncio.create_task(holder())
    await entered.wait()
    with pytest.raises(LLMLimiterTimeout):
        async with limiter.slot():
            pass
    assert limiter.timeouts == 1
    hold.set()
    await task
    async with asyncio.timeout(1), limiter.slot():  # the slot is free again
        assert limiter.in_flight == 1
    assert limiter.in_flight == 0


async def test_limiter_timeout_reaches_model_as_llm_error(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    limiter = Limiter(concurrency=1, queue_timeout_s=0.1)
    release = asyncio.Event()

    async def held(_: RecordedRequest) -> FakeReply:
        await release.wait()
        return FakeReply.json(PLAN)

    server.default = held
    model = make_model(limiter=limiter)
    first = asyncio.create_task(model.complete(plan_request("a")))
    async with asyncio.timeout(5):
        await server.wait_for_in_flight(1)
    with pytest.raises(LLMLimiterTimeout) as info:
        await model.complete(plan_request("b"))
    assert info.value.attempts == 0  # nothing was sent
    release.set()
    await first
    assert len(server.requests) == 1


async def test_expected_wait_counts_from_the_grant_of_the_request_in_flight() -> None:
    limiter = Limiter(concurrency=1)
    limiter.concurrency_control.service_s = 10.0
    assert limiter.expected_wait_s(Priority.HIGH) == 0.0  # a free slot
    async with limiter.slot(module="cognitive_controller", priority=Priority.HIGH) as slot:
        slot.granted_at -= 4.0  # granted 4 s ago: about 6 s left of its service
        assert limiter.expected_wait_s(Priority.HIGH) == pytest.approx(6.0, abs=0.5)
        slot.granted_at -= 20.0  # overdue: the slot frees any moment
        assert limiter.expected_wait_s(Priority.HIGH) == pytest.approx(0.0, abs=0.5)


async def test_agents_take_turns_within_a_priority() -> None:
    """One slot, two agents asking again as soon as they are answered: the one served least
    recently goes first, so neither is starved behind the other's next call."""
    limiter = Limiter(concurrency=1)
    order: list[str] = []
    release = asyncio.Event()

    async def ask(agent: str) -> None:
        async with limiter.slot(module="cognitive_controller", agent=agent, deadline_s=5):
            order.append(agent)
            await release.wait()

    async with asyncio.timeout(5):
        first = asyncio.create_task(ask("bob"))  # bob holds the slot
        await limiter.wait_for(lambda lim: lim.in_flight == 1)
        bob_again = asyncio.create_task(ask("bob"))  # bob asks again at once
        await limiter.wait_for(lambda lim: lim.queued == 1)
        ann = asyncio.create_task(ask("ann"))  # ann, never served, asks after him
        await limiter.wait_for(lambda lim: lim.queued == 2)
        assert limiter.queued_ahead(Priority.HIGH) == 2  # a newcomer just served: last
        release.set()
        await asyncio.gather(first, ann, bob_again)
    assert order == ["bob", "ann", "bob"]
