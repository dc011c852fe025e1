"""A granted slot reports back: the real token count corrects the TPM bucket (given back or
charged extra, once), a 429 lowers the adaptive limit."""

from __future__ import annotations

import pytest

from agent_runtime.llm import Limiter


async def test_settle_corrects_the_token_bucket_once() -> None:
    limiter = Limiter(tokens_per_minute=1000, clock=lambda: 0.0)  # a still clock: no refill
    assert limiter.tokens is not None
    async with limiter.slot(300) as slot:
        assert limiter.tokens.level == pytest.approx(700)
        slot.settle(100)  # 200 of the estimate given back
        assert limiter.tokens.level == pytest.approx(900)
        slot.settle(50)  # settled already: no second correction
        assert limiter.tokens.level == pytest.approx(900)
    async with limiter.slot(100) as slot:
        slot.settle(400)  # 300 more than estimated: charged
    assert limiter.tokens.level == pytest.approx(500)


async def test_a_429_lowers_the_adaptive_limit() -> None:
    limiter = Limiter(concurrency=8, adaptive=True, initial_concurrency=8)
    async with limiter.slot() as slot:
        slot.overloaded()
    assert limiter.limit < 8
