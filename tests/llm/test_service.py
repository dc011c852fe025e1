"""LLMService wiring, think()/Brain fallback, budgets, accounting and the prompt log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agent_runtime.config.llm import LLMSettings
from agent_runtime.interfaces import LLMRequest, Message
from agent_runtime.llm import (
    PROMPT_LOG_NAME,
    Accounting,
    Brain,
    FakeOpenAIServer,
    FakeReply,
    LLMConfigError,
    LLMError,
    LLMService,
    LLMTimeout,
    ScriptedLanguageModel,
    think,
)

from .conftest import API_KEY, PLAN, Plan, plan_request

ENV = {"PIANO_TEST_KEY": API_KEY}


def settings(server: FakeOpenAIServer, **kw: Any) -> LLMSettings:
    base: dict[str, Any] = {
        "provider": "openai",
        "base_url": server.base_url,
        "api_key_env": "PIANO_TEST_KEY",
        "max_retries": 1,
        "backoff_base_s": 0.001,
        "backoff_max_s": 0.01,
        "timeout_s": 5,
    }
    return LLMSettings.model_validate({**base, **kw})


def heuristic_plan() -> Plan:
    return Plan(goal="idle", steps=["wait"])


# --- think / Brain ----------------------------------------------------------------------


async def test_think_without_model_is_heuristic() -> None:
    acc = Accounting()
    thought = await think(None, heuristic_plan, module="planning", agent="a", accounting=acc)
    assert thought.brain == "heuristic" and thought.is_heuristic
    assert thought.value.goal == "idle"
    assert thought.fallback_reason is None
    s = acc.stats()
    assert (s.heuristic, s.fallbacks, s.calls) == (1, 0, 0)


async def test_think_falls_back_and_labels_heuristic() -> None:
    acc = Accounting()
    model = ScriptedLanguageModel([LLMTimeout("slow")])
    thought = await think(
        lambda: model.complete(plan_request()),
        heuristic_plan,
        module="planning",
        agent="alice",
        accounting=acc,
    )
    assert thought.brain == "heuristic"
    assert thought.fallback_reason == "LLMTimeout"
    assert thought.result is None
    s = acc.stats(module="planning", agent="alice")
    assert (s.heuristic, s.fallbacks, dict(s.fallback_reasons)) == (1, 1, {"LLMTimeout": 1})


async def test_think_uses_llm_and_labels_it() -> None:
    model = ScriptedLanguageModel([Plan.model_validate(PLAN)], name="gpt-test")
    thought = await think(
        lambda: model.complete(plan_request()), heuristic_plan, module="planning", agent="a"
    )
    assert thought.brain == "llm:gpt-test"
    assert not thought.is_heuristic
    assert thought.result is not None and thought.result.usage.completion_tokens > 0


async def test_async_heuristic_and_bugs_propagate() -> None:
    async def aheuristic() -> Plan:
        return heuristic_plan()

    model = ScriptedLanguageModel([LLMError("x"), ValueError("bug")])
    t = await think(lambda: model.complete(plan_request()), aheuristic, module="m", agent="a")
    assert t.is_heuristic
    with pytest.raises(ValueError, match="bug"):  # not an LLMError: not swallowed
        await think(lambda: model.complete(plan_request()), aheuristic, module="m", agent="a")


async def test_brain_renders_request_only_for_a_model() -> None:
    rendered: list[int] = []

    def request() -> LLMRequest[Plan]:
        rendered.append(1)
        return plan_request()

    heuristic_brain = Brain(None, module="planning", agent="a")
    assert (await heuristic_brain.think(request, heuristic_plan)).is_heuristic
    assert rendered == []
    llm_brain = Brain(ScriptedLanguageModel([PLAN]), module="planning", agent="a")
    assert (await llm_brain.think(request, heuristic_plan)).brain == "llm:scripted"
    assert rendered == [1]


# --- the service ------------------------------------------------------------------------


async def test_default_settings_are_heuristic(tmp_path: Path) -> None:
    assert LLMSettings().provider == "heuristic"
    async with LLMService(LLMSettings(), run_dir=tmp_path) as svc:
        assert svc.model_for("planning") is None
        thought = await svc.brain("planning", "a").think(plan_request, heuristic_plan)
        assert thought.is_heuristic
        assert svc.snapshot()["accounting"]["total"]["heuristic"] == 1


async def test_missing_key_variable_is_a_config_error(server: FakeOpenAIServer) -> None:
    svc = LLMService(settings(server), environ={})
    with pytest.raises(LLMConfigError, match="PIANO_TEST_KEY"):
        await svc.__aenter__()


async def test_model_for_before_start_is_an_error(server: FakeOpenAIServer) -> None:
    with pytest.raises(RuntimeError):
        LLMService(settings(server), environ=ENV).model_for("planning")


async def test_per_module_models_and_endpoints(tmp_path: Path) -> None:
    async with FakeOpenAIServer() as main, FakeOpenAIServer(reject_json_schema=True) as local:
        cfg = settings(
            main,
            model="gpt-4o-mini",
            modules={
                "social_awareness": "gpt-4o",
                "talking": {"model": "llama", "base_url": local.base_url, "api_key_env": None},
            },
        )
        main.default = FakeReply.json(PLAN)
        local.default = FakeReply.json(PLAN)
        async with LLMService(cfg, run_dir=tmp_path, environ=ENV) as svc:
            for module in ("planning", "social_awareness", "talking"):
                model = svc.model_for(module)
                assert model is not None
                await model.complete(plan_request(module=module))
            assert svc.model_for("planning") is svc.model_for("planning")
            snap = svc.snapshot()
        assert [r.body["model"] for r in main.requests] == ["gpt-4o-mini", "gpt-4o"]
        assert [r.body["model"] for r in local.requests] == ["llama", "llama"]
        assert local.requests[0].headers["authorization"] == "Bearer not-needed"
        assert snap["models"] == {
            "planning": "gpt-4o-mini",
            "social_awareness": "gpt-4o",
            "talking": "llama",
        }
        endpoints = {(e["base_url"], e["model"]): e for e in snap["endpoints"]}
        local_llama = endpoints[(local.base_url + "/", "llama")]
        assert local_llama["modes"]["json_schema"] is False
        assert local_llama["working_mode"] == "json_object_schema"
        json.dumps(snap)  # metrics.json material


async def test_accounting_is_exact(server: FakeOpenAIServer) -> None:
    server.push(
        FakeReply.json(PLAN, usage=(100, 20)),
        FakeReply.error(500),
        FakeReply.json(PLAN, usage=(200, 40)),
        FakeReply.error(500),
        FakeReply.error(500),
    )
    cfg = settings(server, model="gpt-4o", log_prompts=False)
    async with LLMService(cfg, environ=ENV) as svc:
        model = svc.model_for("planning")
        assert model is not None
        r1 = await model.complete(plan_request("alice"))
        r2 = await model.complete(plan_request("bob"))
        with pytest.raises(LLMError):
            await model.complete(plan_request("alice"))
        assert r1.cost_usd == pytest.approx((100 * 2.5 + 20 * 10.0) / 1e6)
        assert r2.attempts == 2
        total = svc.accounting.stats()
        assert (total.calls, total.ok, total.failures) == (3, 2, 1)
        assert (total.attempts, total.retries) == (5, 2)
        assert (total.prompt_tokens, total.completion_tokens) == (300, 60)
        assert total.cost_usd == pytest.approx((300 * 2.5 + 60 * 10.0) / 1e6)
        assert dict(total.errors) == {"LLMServerError": 1}
        alice = svc.accounting.stats(agent="alice")
        assert (alice.calls, alice.failures, alice.prompt_tokens) == (2, 1, 100)
        summary = svc.accounting.summary()
        assert summary["planning"]["calls"] == 3
        assert summary["planning"]["total_tokens"] == 360
        assert svc.budgets.snapshot()["agents"] == {}  # unlimited: nothing tracked
        assert svc.limiter.granted == 5  # every HTTP attempt went through the limiter


async def test_budget_exhausted_falls_back(server: FakeOpenAIServer) -> None:
    server.default = FakeReply.json(PLAN, usage=(80, 30))
    cfg = settings(server, budget={"max_tokens": 200}, log_prompts=False)
    async with LLMService(cfg, environ=ENV) as svc:
        brain = svc.brain("planning", "alice")
        labels = [(await brain.think(plan_request, heuristic_plan)).brain for _ in range(3)]
        # 110 tokens, then 220 (over the cap), then refused without a request
        assert labels == ["llm:gpt-4o-mini", "llm:gpt-4o-mini", "heuristic"]
        assert len(server.requests) == 2
        s = svc.accounting.stats(agent="alice")
        assert (s.fallbacks, dict(s.fallback_reasons)) == (1, {"LLMBudgetExceeded": 1})
        assert svc.budgets.spend("alice").tokens == 220
        # another agent still has its own budget
        bob = await svc.brain("planning", "bob").think(plan_request, heuristic_plan)
        assert bob.brain == "llm:gpt-4o-mini"


async def test_failed_call_falls_back_through_service(server: FakeOpenAIServer) -> None:
    server.default = FakeReply.error(503)
    async with LLMService(settings(server, log_prompts=False), environ=ENV) as svc:
        thought = await svc.brain("planning", "a").think(plan_request, heuristic_plan)
    assert thought.is_heuristic and thought.fallback_reason == "LLMServerError"
    assert len(server.requests) == 2  # max_retries=1


async def test_prompt_log_has_no_secrets(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.push(
        FakeReply.json(PLAN),
        FakeReply.text("oops sk-leakedkey1234567890 Bearer abc.def"),
        FakeReply.text("still bad"),
    )
    async with LLMService(settings(server), run_dir=tmp_path, environ=ENV) as svc:
        model = svc.model_for("planning")
        assert model is not None
        leaky = (
            f"my key is {API_KEY}; header Authorization: Bearer tok123.xyz; other sk-abcdefghijk"
        )
        await model.complete(plan_request(user=leaky))
        with pytest.raises(LLMError):
            await model.complete(plan_request(user="again"))
    text = (tmp_path / PROMPT_LOG_NAME).read_text()
    assert API_KEY not in text
    assert "SECRETSECRET" not in text
    assert "tok123" not in text and "sk-abcdefghijk" not in text and "sk-leaked" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == 2
    ok, bad = lines
    assert ok["module"] == "planning" and ok["agent"] == "alice" and ok["prompt_name"] == "plan"
    assert ok["reply"] == PLAN and ok["error"] is None and ok["brain"] == "llm:gpt-4o-mini"
    assert "[REDACTED]" in ok["messages"][1]["content"]
    assert bad["error"].startswith("LLMInvalidOutput") and bad["reply"] == "still bad"
    assert bad["attempts"] == 2


async def test_simulated_provider(tmp_path: Path) -> None:
    cfg = LLMSettings(provider="simulated", simulated_latency_ms=1, concurrency=4)
    async with LLMService(cfg, run_dir=tmp_path) as svc:
        thought = await svc.brain("planning", "a").think(plan_request, heuristic_plan)
        assert thought.brain == "llm:simulated"
        assert svc.limiter.granted == 1
        assert svc.accounting.stats().prompt_tokens > 0


async def test_injected_backend_is_shared_and_closed_once() -> None:
    backend = ScriptedLanguageModel(responder=lambda req: PLAN)
    async with LLMService(LLMSettings(), backend=backend) as svc:
        a, b = svc.model_for("planning"), svc.model_for("talking")
        assert a is not None and b is not None and a is not b
        await a.complete(plan_request())
        await b.complete(plan_request(module="talking"))
        assert set(svc.accounting.summary()) == {"planning", "talking"}
    assert backend.closed


class Free(BaseModel):
    tags: dict[str, int]


async def test_free_form_models_are_sent_non_strict(server: FakeOpenAIServer) -> None:
    server.push(FakeReply.json({"tags": {"a": 1}}))
    async with LLMService(settings(server, log_prompts=False), environ=ENV) as svc:
        model = svc.model_for("memory")
        assert model is not None
        req = LLMRequest("memory", "a", (Message("user", "tags?"),), Free)
        assert (await model.complete(req)).value.tags == {"a": 1}
    assert server.requests[0].body["response_format"]["json_schema"]["strict"] is False
