"""OpenAILanguageModel against the fake server: retries, timeouts, structured output."""

from __future__ import annotations

import asyncio
import json
import random
import time

import pytest

from agent_runtime.llm import (
    FakeOpenAIServer,
    FakeReply,
    Limiter,
    LLMInvalidOutput,
    LLMRateLimited,
    LLMRequestRejected,
    LLMServerError,
    LLMTimeout,
    Priority,
    RetryPolicy,
    SchedulingPolicy,
)

from .conftest import API_KEY, PLAN, ModelFactory, Plan, plan_request

# --- retries ----------------------------------------------------------------------------


async def test_429_then_success(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    server.push(FakeReply.error(429), FakeReply.json(PLAN))
    result = await make_model(max_retries=2).complete(plan_request())
    assert result.value == Plan.model_validate(PLAN)
    assert result.attempts == 2
    assert len(server.requests) == 2
    assert result.brain == "llm:gpt-4o-mini"


async def test_5xx_exhausts_retries(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    server.push(*[FakeReply.error(500)] * 3, FakeReply.json(PLAN))
    with pytest.raises(LLMServerError) as info:
        await make_model(max_retries=2).complete(plan_request())
    # the counter really increments: 1 try + 2 retries, then it gives up
    assert len(server.requests) == 3
    assert info.value.attempts == 3
    assert info.value.status_code == 500
    assert server.queued == 1  # the success was never reached


async def test_persistent_429_raises_rate_limited(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.default = FakeReply.error(429)
    with pytest.raises(LLMRateLimited) as info:
        await make_model(max_retries=1).complete(plan_request())
    assert info.value.attempts == 2
    assert len(server.requests) == 2


async def test_client_errors_are_not_retried(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.push(FakeReply.error(401, "bad key"), FakeReply.json(PLAN))
    with pytest.raises(LLMRequestRejected):
        await make_model(max_retries=3).complete(plan_request())
    assert len(server.requests) == 1


async def test_malformed_body_is_retried(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.push(FakeReply(raw_body=b"{this is not json"), FakeReply.json(PLAN))
    result = await make_model().complete(plan_request())
    assert result.attempts == 2


async def test_sdk_retries_are_off_and_key_is_sent(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.push(FakeReply.json(PLAN))
    await make_model().complete(plan_request())
    (req,) = server.requests
    assert req.headers["authorization"] == f"Bearer {API_KEY}"
    assert req.body["model"] == "gpt-4o-mini"
    assert req.body["max_tokens"] == 512


def test_backoff_is_bounded_and_grows() -> None:
    policy = RetryPolicy(max_retries=10, backoff_base_s=0.5, backoff_max_s=4.0)
    rng = random.Random(7)
    for retry in range(1, 11):
        cap = min(4.0, 0.5 * 2 ** (retry - 1))
        for _ in range(50):
            d = policy.delay(retry, rng)
            assert cap / 2 <= d <= cap
    # Retry-After raises the delay, but never beyond the cap
    assert policy.delay(1, rng, retry_after=3.0) == 3.0
    assert policy.delay(1, rng, retry_after=60.0) == 4.0


async def test_retry_after_header_is_honoured(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.push(FakeReply.error(429, retry_after=0.2), FakeReply.json(PLAN))
    model = make_model(backoff=(0.001, 0.3))
    await model.complete(plan_request())
    first, second = server.requests
    assert second.received_at - first.received_at >= 0.15


# --- timeouts ---------------------------------------------------------------------------


async def test_timeout_is_not_retried(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    # a slow local server is still working on the request: a retry would double its load
    server.default = FakeReply.json(PLAN, delay_s=10.0)
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout) as info:
        await make_model(timeout_s=0.2, max_retries=3).complete(plan_request())
    assert time.monotonic() - t0 < 5.0  # gave up long before the reply (10 s) came
    assert info.value.attempts == 1
    assert len(server.requests) == 1


async def test_shed_retry_reports_the_error_it_was_retrying(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    policy = SchedulingPolicy(deadlines_s={p: 0.05 for p in Priority})
    limiter = Limiter(concurrency=1, policy=policy)
    server.push(FakeReply.error(503))
    release = asyncio.Event()

    async def hold() -> None:
        async with limiter.slot(module="x"):
            await release.wait()

    model = make_model(limiter=limiter, max_retries=2, backoff=(0.2, 0.2))
    call = asyncio.create_task(model.complete(plan_request()))
    async with asyncio.timeout(5):
        await server.wait_for_requests(1)
        await limiter.wait_for(lambda lim: lim.in_flight == 0)
    holder = asyncio.create_task(hold())  # the retry finds the only slot taken
    with pytest.raises(LLMServerError) as info:
        await call
    assert info.value.attempts == 1
    release.set()
    await holder


# --- structured output ------------------------------------------------------------------


async def test_json_schema_is_strict(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    server.push(FakeReply.json(PLAN))
    model = make_model()
    await model.complete(plan_request())
    body = server.requests[0].body
    rf = body["response_format"]
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["name"] == "Plan"
    assert rf["json_schema"]["strict"] is True
    schema = rf["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert sorted(schema["required"]) == ["goal", "steps", "urgency"]
    assert model.endpoint.json_schema is True


async def test_json_schema_rejection_is_remembered(
    make_model: ModelFactory, server: FakeOpenAIServer
) -> None:
    server.reject_response_formats.add("json_schema")
    server.push(FakeReply.json(PLAN), FakeReply.json(PLAN))
    model = make_model()
    first = await model.complete(plan_request())
    assert [r.response_format for r in server.requests] == ["json_schema", "json_object"]
    assert first.attempts == 2
    assert model.endpoint.json_schema is False
    # json_object with the schema: the grammar enforces it, the prompt names the fields
    assert server.requests[1].format_mode == "json_object_schema"
    system = [m["content"] for m in server.requests[1].messages if m["role"] == "system"]
    assert any("JSON object" in s and "goal, steps, urgency" in s for s in system)

    second = await model.complete(plan_request())
    assert [r.response_format for r in server.requests[2:]] == ["json_object"]
    assert second.attempts == 1


async def test_no_response_format_support_falls_back_to_prompt_only(
    make_model: ModelFactory, server: FakeOpenAIServer
) -> None:
    server.reject_response_formats.update({"json_schema", "json_object"})
    server.push(FakeReply.json(PLAN), FakeReply.json(PLAN))
    model = make_model()
    assert (await model.complete(plan_request())).attempts == 4
    assert [r.format_mode for r in server.requests] == [
        "json_schema",
        "json_object_schema",
        "json_object",
        None,
    ]
    assert "response_format" not in server.requests[3].body
    assert model.endpoint.modes == {
        "json_schema": False,
        "json_object_schema": False,
        "json_object": False,
    }
    assert model.endpoint.working_mode == "prompt"
    assert (await model.complete(plan_request())).attempts == 1
    assert server.requests[4].response_format is None


async def test_unrelated_400_does_not_poison_endpoint(
    make_model: ModelFactory, server: FakeOpenAIServer
) -> None:
    server.default = FakeReply.error(400, "unknown model")
    model = make_model()
    with pytest.raises(LLMRequestRejected) as info:
        await model.complete(plan_request())
    assert info.value.status_code == 400
    assert len(server.requests) == 4  # json_schema, json_object(+schema), json_object, prompt
    # still unknown, not "unsupported"
    assert set(model.endpoint.modes.values()) == {None}


async def test_forced_json_object(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    server.push(FakeReply.json(PLAN))
    await make_model(structured_output="json_object").complete(plan_request())
    assert server.requests[0].response_format == "json_object"


async def test_fenced_reply_is_accepted(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    server.push(FakeReply.text("Sure! Here it is:\n```json\n" + json.dumps(PLAN) + "\n```"))
    result = await make_model().complete(plan_request())
    assert result.value.goal == "wood"
    assert result.attempts == 1


async def test_invalid_output_is_repaired(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.push(FakeReply.json({"goal": "wood", "steps": []}), FakeReply.json(PLAN))
    result = await make_model().complete(plan_request())
    assert result.value == Plan.model_validate(PLAN)
    assert result.attempts == 2
    repair = server.requests[1].messages
    assert repair[-2] == {"role": "assistant", "content": json.dumps({"goal": "wood", "steps": []})}
    assert repair[-1]["role"] == "user"
    assert "steps" in repair[-1]["content"]  # the validation error is shown
    # tokens of both exchanges are counted
    assert result.usage.prompt_tokens > 0
    assert result.usage.completion_tokens == (
        len(json.dumps({"goal": "wood", "steps": []})) // 4 + len(json.dumps(PLAN)) // 4
    )


async def test_invalid_twice_raises(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    server.push(FakeReply.text("not json at all"), FakeReply.text('{"goal": 3}'))
    with pytest.raises(LLMInvalidOutput) as info:
        await make_model().complete(plan_request())
    assert info.value.attempts == 2
    assert info.value.raw == '{"goal": 3}'
    assert info.value.usage.total_tokens > 0
    assert len(server.requests) == 2


async def test_usage_estimated_when_missing(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.push(FakeReply.json(PLAN, omit_usage=True))
    result = await make_model().complete(plan_request())
    assert result.usage.completion_tokens == len(json.dumps(PLAN)) // 4
    assert result.usage.prompt_tokens > 0


async def test_cancellation_propagates(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    server.default = FakeReply.json(PLAN, delay_s=5.0)
    task = asyncio.create_task(make_model().complete(plan_request()))
    async with asyncio.timeout(5):
        await server.wait_for_requests(1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_raw_control_characters_in_strings_are_tolerated(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    # a grammar that lets a raw newline into a string: no repair round trip for that
    server.push(
        FakeReply.text('{"goal": "wood\nand stone", "steps": ["chop\\tnow"], "urgency": 1}')
    )
    result = await make_model().complete(plan_request())
    assert result.value.goal == "wood\nand stone"
    assert result.attempts == 1
