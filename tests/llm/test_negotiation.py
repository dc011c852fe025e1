"""Structured-output negotiation per (endpoint, model) against the fake server."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import BaseModel

from agent_runtime.config.llm import LLMSettings
from agent_runtime.interfaces import LLMRequest, Message
from agent_runtime.llm import (
    FakeOpenAIServer,
    FakeReply,
    LLMRequestRejected,
    LLMService,
    RecordedRequest,
)

from .conftest import PLAN, ModelFactory, Plan, plan_request

LLAMA_CPP_500 = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


def llama_cpp_like(server: FakeOpenAIServer) -> None:
    """What llama-cpp-python's server does with response_format json_schema."""
    server.reject_response_formats.add("json_schema")
    server.reject_status = 500
    server.reject_message = LLAMA_CPP_500


async def test_500_format_rejection_downgrades_without_retries(
    server: FakeOpenAIServer, make_model: ModelFactory, caplog: pytest.LogCaptureFixture
) -> None:
    llama_cpp_like(server)
    server.default = FakeReply.json(PLAN)
    model = make_model(max_retries=3)
    with caplog.at_level(logging.INFO, logger="agent_runtime.llm.openai_model"):
        first = await model.complete(plan_request())
        second = await model.complete(plan_request())
    # one rejected json_schema request, then json_object with the schema: no retry of the 500
    assert [r.format_mode for r in server.requests] == [
        "json_schema",
        "json_object_schema",
        "json_object_schema",
    ]
    assert (first.attempts, second.attempts) == (2, 1)
    sent = server.requests[1].body["response_format"]
    assert sent["type"] == "json_object" and sent["schema"]["required"] == [
        "goal",
        "steps",
        "urgency",
    ]
    assert model.endpoint.modes["json_schema"] is False
    assert model.endpoint.working_mode == "json_object_schema"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "rejects response_format json_schema" in warnings[0].message


async def test_unrelated_500_is_retried_as_transient(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.push(FakeReply.error(500, "CUDA out of memory"), FakeReply.json(PLAN))
    result = await make_model(max_retries=3).complete(plan_request())
    assert result.attempts == 2
    assert [r.format_mode for r in server.requests] == ["json_schema", "json_schema"]


async def test_422_rejection_is_recognised(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.reject_response_formats.update({"json_schema", "json_object_schema"})
    server.reject_status = 422
    server.reject_message = "response_format: unsupported value"
    server.default = FakeReply.json(PLAN)
    model = make_model(max_retries=3)
    await model.complete(plan_request())
    assert [r.format_mode for r in server.requests] == [
        "json_schema",
        "json_object_schema",
        "json_object",
    ]
    assert model.endpoint.working_mode == "json_object"


async def test_forced_mode_rejected_fails_at_once(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    llama_cpp_like(server)
    model = make_model(max_retries=3, structured_output="json_schema")
    with pytest.raises(LLMRequestRejected) as info:
        await model.complete(plan_request())
    assert info.value.status_code == 500
    assert len(server.requests) == 1  # not retried as if transient


async def test_rejections_are_counted_and_remembered_per_model(tmp_path: Path) -> None:
    async with FakeOpenAIServer(models=["small", "big"]) as srv:
        settings = LLMSettings(
            provider="openai",
            base_url=srv.base_url,
            api_key_env=None,
            model="small",
            modules={"planning": "big"},
            log_prompts=False,
        )

        # only "small" is served by a llama.cpp-like back end
        def respond(req: RecordedRequest) -> FakeReply:
            if req.body["model"] == "small" and req.format_mode == "json_schema":
                return FakeReply.error(500, LLAMA_CPP_500)
            return FakeReply.json(PLAN)

        srv.default = respond
        async with LLMService(settings) as svc:
            controller = svc.brain("cognitive_controller", "a")
            planning = svc.brain("planning", "a")
            for _ in range(2):
                await controller.think(lambda: plan_request(module="cognitive_controller"), _plan)
                await planning.think(plan_request, _plan)
            snap = svc.snapshot()
    by_module = snap["accounting"]["by_module"]
    assert by_module["cognitive_controller"]["format_rejections"] == 1
    assert by_module["cognitive_controller"]["attempt_errors"] == {"HTTP 500": 1}
    assert by_module["cognitive_controller"]["parsed"] == 2
    assert by_module["planning"]["format_rejections"] == 0
    endpoints = {e["model"]: e["working_mode"] for e in snap["endpoints"]}
    assert endpoints == {"small": "json_object_schema", "big": "json_schema"}
    assert snap["accounting"]["total"]["fallbacks"] == 0


def _plan() -> Plan:
    raise AssertionError("the heuristic must not be needed")


async def test_repaired_reply_is_counted(server: FakeOpenAIServer) -> None:
    server.push(FakeReply.text("not json"), FakeReply.json(PLAN), FakeReply.json(PLAN))
    settings = LLMSettings(
        provider="openai", base_url=server.base_url, api_key_env=None, log_prompts=False
    )
    async with LLMService(settings) as svc:
        brain = svc.brain("planning", "a")
        await brain.think(plan_request, _plan)
        await brain.think(plan_request, _plan)
        stats = svc.accounting.stats(module="planning")
    assert (stats.calls, stats.parsed, stats.repaired, stats.ok) == (2, 1, 1, 2)


class _Choice(BaseModel):
    kind: str
    note: str | None = None
    count: int | None = None


async def test_grammar_mode_lets_the_model_leave_null_fields_out(
    server: FakeOpenAIServer, make_model: ModelFactory
) -> None:
    server.default = FakeReply.json({"kind": "work"})  # the nullable fields left out
    model = make_model(structured_output="json_object_schema")
    request = LLMRequest(
        module="cognitive_controller",
        agent="alice",
        messages=(Message("system", "You decide."), Message("user", "Now?")),
        response_model=_Choice,
    )
    result = await model.complete(request)
    assert result.value == _Choice(kind="work") and result.attempts == 1
    body = server.requests[0].body
    schema = body["response_format"]["schema"]
    assert schema["required"] == ["kind"] and set(schema["properties"]) == {"kind", "note", "count"}
    assert schema["additionalProperties"] is False
    instruction = body["messages"][1]["content"]
    assert "fields: kind;" in instruction and "(leave the others out): note, count" in instruction
