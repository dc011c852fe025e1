"""Scripted and simulated models, schema helpers, and the llm: settings."""

from __future__ import annotations

import asyncio
import enum
import json
import time
from typing import Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from agent_runtime.config.llm import LLMSettings
from agent_runtime.interfaces import LLMRequest, Message
from agent_runtime.llm import (
    LLMInvalidOutput,
    LLMTimeout,
    ScriptedLanguageModel,
    ScriptExhausted,
    SimulatedLanguageModel,
)
from agent_runtime.llm._schema import extract_json, strict_json_schema, synthesise

from .conftest import PLAN, Plan, plan_request

# --- scripted ---------------------------------------------------------------------------


async def test_scripted_replies_in_order() -> None:
    model = ScriptedLanguageModel(
        [Plan.model_validate(PLAN), PLAN, "```json\n" + '{"goal": "g", "steps": ["s"]}' + "\n```"]
    )
    values = [(await model.complete(plan_request())).value for _ in range(3)]
    assert [v.goal for v in values] == ["wood", "wood", "g"]
    assert len(model.calls) == 3 and model.remaining == 0
    with pytest.raises(ScriptExhausted):
        await model.complete(plan_request())


async def test_scripted_errors_and_invalid_text() -> None:
    model = ScriptedLanguageModel([LLMTimeout("slow"), "nope", {"goal": "x", "steps": []}])
    with pytest.raises(LLMTimeout):
        await model.complete(plan_request())
    with pytest.raises(LLMInvalidOutput):
        await model.complete(plan_request())
    with pytest.raises(LLMInvalidOutput):
        await model.complete(plan_request())


async def test_scripted_responder_and_token_counts() -> None:
    async def responder(req: LLMRequest[Plan]) -> dict[str, object]:
        return {"goal": req.agent, "steps": ["a"]}

    model = ScriptedLanguageModel(responder=responder)
    result = await model.complete(plan_request("zoe"))
    assert result.value.goal == "zoe"
    assert result.brain == "llm:scripted"
    assert result.usage.prompt_tokens == len("You plan.") // 4 + len("What next?") // 4
    # the reply as the "model" wrote it
    assert result.usage.completion_tokens == len(json.dumps({"goal": "zoe", "steps": ["a"]})) // 4


# --- simulated --------------------------------------------------------------------------


class Mood(enum.Enum):
    calm = "calm"
    angry = "angry"


class Inner(BaseModel):
    x: float = Field(gt=1.5)


class Rich(BaseModel):
    name: str = Field(min_length=5)
    count: int = Field(ge=3)
    mood: Mood
    kind: Literal["a", "b"]
    tags: list[str] = Field(min_length=2)
    inner: Inner
    maybe: int | None
    pair: tuple[int, str]
    flag: bool = True


def test_synthesise_respects_constraints() -> None:
    data = synthesise(Rich)
    rich = Rich.model_validate(data)
    assert rich.count == 3 and len(rich.name) >= 5 and len(rich.tags) == 2
    assert rich.flag is True and rich.maybe is None


def test_synthesise_reports_impossible_models() -> None:
    class Coded(BaseModel):
        code: str = Field(pattern=r"^[A-Z]{3}$")

    with pytest.raises(TypeError, match="Coded"):
        synthesise(Coded)


async def test_simulated_model_is_valid_and_labelled() -> None:
    model = SimulatedLanguageModel(latency_ms=0, seed=3)
    req = LLMRequest("m", "a", (Message("user", "x" * 400),), Rich)
    result = await model.complete(req)
    assert isinstance(result.value, Rich)
    assert result.brain == "llm:simulated"
    assert result.usage.prompt_tokens == 100 + 4
    assert result.usage.completion_tokens > 0
    again = await model.complete(req)
    assert again.value == result.value and again.value is not result.value


async def test_simulated_model_scales_to_a_thousand_agents() -> None:
    model = SimulatedLanguageModel(latency_ms=100, seed=1, jitter=0.2)
    t0 = time.monotonic()
    results = await asyncio.gather(*(model.complete(plan_request(f"a{i}")) for i in range(1000)))
    elapsed = time.monotonic() - t0
    assert len(results) == 1000 and model.calls == 1000
    assert all(0.08 <= r.latency_s <= 0.12 for r in results)
    assert elapsed < 20.0  # concurrent: a fifth of the 100 s a serial model would take


# --- schema helpers ---------------------------------------------------------------------


def test_extract_json_variants() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert extract_json('```\n{"a": 1}\n```') == '{"a": 1}'
    assert extract_json('Here you go: {"a": {"b": 2}} hope it helps') == '{"a": {"b": 2}}'
    assert extract_json('  {"a": 1}  ') == '{"a": 1}'


def test_strict_schema_shapes_nested_models() -> None:
    schema, strict = strict_json_schema(Rich)
    assert strict
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(Rich.model_fields)
    inner = schema["$defs"]["Inner"]
    assert inner["additionalProperties"] is False and inner["required"] == ["x"]
    assert "default" not in schema["properties"]["flag"]


# --- settings ---------------------------------------------------------------------------


def test_settings_defaults_and_validation() -> None:
    s = LLMSettings()
    assert s.provider == "heuristic"
    assert {"gpt-4o", "gpt-4o-mini"} <= set(s.prices)
    with pytest.raises(ValidationError):
        LLMSettings.model_validate({"api_key": "sk-nope"})  # extra="forbid"
    with pytest.raises(ValidationError):
        LLMSettings(api_key_env="sk-not-a-variable-name")
    with pytest.raises(ValidationError):
        s.model = "x"  # type: ignore[misc]  # frozen


def test_settings_overrides() -> None:
    s = LLMSettings.model_validate(
        {
            "provider": "openai",
            "base_url": "http://a/v1",
            "temperature": 0.2,
            "modules": {"talking": "gpt-4o", "planning": {"base_url": "http://b/v1"}},
            "prices": {"gpt-4o": {"input_per_mtok": 1, "output_per_mtok": 2}},
        }
    )
    assert s.for_module("talking").model == "gpt-4o"
    assert s.for_module("talking").base_url == "http://a/v1"
    assert s.for_module("planning").base_url == "http://b/v1"
    assert s.for_module("planning").model == "gpt-4o-mini"
    assert s.for_module("memory").temperature == 0.2
    assert s.prices["gpt-4o"].input_per_mtok == 1
    assert s.prices["gpt-4o-mini"].input_per_mtok == 0.15  # defaults kept
