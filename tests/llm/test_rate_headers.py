"""Staying inside the endpoint's limits: rate-limit headers read from the fake server pace
the next requests before a 429; a 429's retry-after holds everyone; cached tokens are read
from the usage and priced at the cached price (issue 30)."""

from __future__ import annotations

import asyncio

import pytest

from agent_runtime.llm import (
    Accounting,
    Bookkeeping,
    FakeOpenAIServer,
    FakeReply,
    Limiter,
    LLMShed,
    ManagedLanguageModel,
    PriceTable,
)
from agent_runtime.llm.calls import CallOptions, call_options
from agent_runtime.llm.pacing import HeaderPacer, parse_duration, parse_rate_headers

from .conftest import PLAN, ModelFactory, plan_request


def limits(
    remaining_requests: int,
    reset_requests: str = "1s",
    *,
    limit_requests: int = 100,
    remaining_tokens: int = 100_000,
    limit_tokens: int = 100_000,
    reset_tokens: str = "1s",
) -> dict[str, str]:
    return {
        "x-ratelimit-limit-requests": str(limit_requests),
        "x-ratelimit-remaining-requests": str(remaining_requests),
        "x-ratelimit-reset-requests": reset_requests,
        "x-ratelimit-limit-tokens": str(limit_tokens),
        "x-ratelimit-remaining-tokens": str(remaining_tokens),
        "x-ratelimit-reset-tokens": reset_tokens,
    }


def test_parse_durations_and_headers() -> None:
    assert parse_duration("1s") == 1.0
    assert parse_duration("6m0s") == 360.0
    assert parse_duration("120ms") == pytest.approx(0.12)
    assert parse_duration("1h2m3.5s") == pytest.approx(3723.5)
    assert parse_duration("2") == 2.0
    assert parse_duration("soon") is None
    info = parse_rate_headers({**limits(7, "250ms"), "Retry-After": "3"})
    assert info.remaining_requests == 7 and info.limit_requests == 100
    assert info.reset_requests_s == pytest.approx(0.25)
    assert info.remaining_tokens == 100_000 and info.retry_after_s == 3.0
    assert parse_rate_headers({"content-type": "application/json"}).empty


def test_pacer_without_headers_never_waits() -> None:
    pacer = HeaderPacer()
    pacer.observe({"content-type": "application/json"})
    assert pacer.delay(10_000) == 0.0


def test_pacer_spreads_the_last_requests_and_forgets_after_the_reset() -> None:
    now = [100.0]
    pacer = HeaderPacer(clock=lambda: now[0])
    pacer.observe(limits(5, "1s"))  # 5 of 100 left for 1 s: below the low-water mark
    assert pacer.delay(10) == 0.0  # the first one goes at once
    pacer.spend(10, 0.0)
    assert pacer.delay(10) == pytest.approx(1.0 / 4)  # 4 left over 1 s: one every 0.25 s
    now[0] += 0.25
    assert pacer.delay(10) == 0.0
    pacer.observe(limits(0, "2s"))
    assert pacer.delay(10) == pytest.approx(2.0)  # nothing left: until the reset
    now[0] += 2.0
    assert pacer.delay(10) == 0.0  # the window refilled
    pacer.observe(limits(90, "1s", remaining_tokens=500))
    assert pacer.delay(400) == 0.0
    assert pacer.delay(800) == pytest.approx(1.0)  # not enough tokens for this one


async def test_no_requests_left_waits_for_the_reset_before_sending(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    limiter = Limiter(concurrency=4)
    model = make_model(limiter=limiter)
    server.push(
        FakeReply.json(PLAN, headers=limits(0, "300ms")),
        FakeReply.json(PLAN, headers=limits(99, "1s")),
    )
    await model.complete(plan_request())
    assert limiter.pacer.observed == 1
    assert limiter.pacer.requests.remaining == 0
    await model.complete(plan_request())
    assert limiter.pacer.paced == 1  # the second request waited for the reset
    assert 0 < limiter.pacer.paced_s_total <= 0.3
    assert len(server.requests) == 2
    assert limiter.snapshot()["rate_headers"]["paced"] == 1


async def test_pacing_that_would_pass_the_deadline_sheds(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    limiter = Limiter(concurrency=4)
    model = make_model(limiter=limiter)
    server.push(FakeReply.json(PLAN, headers=limits(0, "60s")))
    await model.complete(plan_request())
    with call_options(CallOptions(deadline_s=0.05)), pytest.raises(LLMShed) as info:
        await model.complete(plan_request())
    assert info.value.reason == "rate_limit"
    assert len(server.requests) == 1  # nothing was sent into the wall
    assert limiter.in_flight == 0


async def test_retry_after_holds_every_request(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    limiter = Limiter(concurrency=4)
    model = make_model(limiter=limiter, max_retries=2, backoff=(0.001, 0.001))
    server.push(FakeReply.error(429, retry_after=0.3), FakeReply.json(PLAN), FakeReply.json(PLAN))
    await model.complete(plan_request())  # a 429, then the retry after 0.3 s
    assert limiter.pacer.retry_after_pauses == 1
    assert limiter.pacer.paced >= 1  # the retry itself went through the pacer
    assert len(server.requests) == 2


async def test_cached_tokens_are_read_and_priced_at_the_cached_price(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    accounting = Accounting()
    model = ManagedLanguageModel(
        make_model(model="gpt-4o"), Bookkeeping(accounting, None, PriceTable())
    )
    server.push(FakeReply.json(PLAN, usage=(1_000, 50), cached_tokens=600))
    result = await model.complete(plan_request())
    assert result.usage.cached_tokens == 600
    assert result.cost_usd == pytest.approx((400 * 2.5 + 600 * 1.25 + 50 * 10) / 1e6)
    assert accounting.summary()["planning"]["cached_tokens"] == 600
    server.push(FakeReply.json(PLAN, usage=(1_000, 50)))  # a server that reports none
    plain = await model.complete(plan_request())
    assert plain.usage.cached_tokens == 0


async def test_concurrent_requests_count_against_what_is_left(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    limiter = Limiter(concurrency=8)
    model = make_model(limiter=limiter)
    server.default = FakeReply.json(PLAN, headers=limits(2, "400ms"))
    await model.complete(plan_request())  # 2 left
    await asyncio.gather(*(model.complete(plan_request(f"a{i}")) for i in range(3)))
    # sent together, the third read "2 left" minus the two granted before it: it waited
    assert limiter.pacer.paced >= 1
