"""``llm.budget.max_usd_per_hour``: a village-wide spending rate that sheds the least needed
modules first, never the controller while others can shed, and says so (issue 30)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from agent_runtime.config.llm import LLMSettings
from agent_runtime.llm import FakeOpenAIServer, FakeReply, LLMService, LLMShed
from agent_runtime.llm.hourly import TIERS, HourlyBudget

from .conftest import API_KEY, PLAN, Plan, plan_request


def test_tiers_shed_in_order_and_recover(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    changes: list[dict[str, Any]] = []
    budget = HourlyBudget(36.0, burst_s=100.0, clock=lambda: now[0])  # $0.01/s, bucket $1
    budget.listeners.append(changes.append)
    modules = ("reflection", "memory", "planning", "talking", "cognitive_controller")
    assert [budget.tier(m) for m in modules] == [0, 1, 2, 3, 4]

    def allowed() -> list[str]:
        out = []
        for m in modules:
            try:
                budget.check(m)
                out.append(m)
            except LLMShed as exc:
                assert exc.reason == "budget"
        return out

    assert allowed() == list(modules)
    with caplog.at_level(logging.WARNING, logger="agent_runtime.llm.hourly"):
        budget.charge(0.25)  # 75% left
    assert allowed() == ["memory", "planning", "talking", "cognitive_controller"]
    assert "the heuristic decides for reflection" in caplog.text
    budget.charge(0.2)  # 55%
    assert allowed() == ["planning", "talking", "cognitive_controller"]
    budget.charge(0.4)  # 15%
    assert allowed() == ["cognitive_controller"]  # the controller is the last to go
    budget.charge(0.3)  # empty (in debt)
    assert allowed() == []
    assert changes[-1]["shedding"] == [name for name, _ in TIERS]
    now[0] += 100.0  # $1 refilled: 85% left
    assert allowed() == list(modules)
    assert changes[-1]["shedding"] == []
    snap = budget.snapshot()
    assert snap["shed_calls"]["reflection"] == 4 and "cognitive_controller" in snap["shed_calls"]
    assert snap["change_count"] == len(changes) == 5


def settings(server: FakeOpenAIServer, per_hour: float | None) -> LLMSettings:
    return LLMSettings.model_validate(
        {
            "provider": "openai",
            "base_url": server.base_url,
            "api_key_env": "PIANO_TEST_KEY",
            "model": "gpt-4o",
            "max_retries": 0,
            "log_prompts": False,
            "budget": {"max_usd_per_hour": per_hour},
        }
    )


def heuristic_plan() -> Plan:
    return Plan(goal="idle", steps=["wait"])


async def test_village_budget_sheds_reflection_first_and_says_so(server: FakeOpenAIServer) -> None:
    # $3.60/hour: a 5-minute bucket of $0.30; one call of 36k prompt tokens at gpt-4o costs
    # $0.09 (30% of it), so after it reflection is shed and the controller is still served
    server.default = FakeReply.json(PLAN, usage=(36_000, 10))
    events: list[tuple[str, dict[str, Any]]] = []
    svc = LLMService(
        settings(server, 3.6),
        environ={"PIANO_TEST_KEY": API_KEY},
        events=lambda type_, **data: events.append((type_, data)),
    )
    async with svc:
        controller = svc.brain("cognitive_controller", "ann")
        reflection = svc.brain("reflection", "ann")
        first = await controller.think(
            lambda: plan_request(module="cognitive_controller"), heuristic_plan
        )
        assert not first.is_heuristic
        shed = await reflection.think(lambda: plan_request(module="reflection"), heuristic_plan)
        assert shed.is_heuristic and shed.fallback_reason == "LLMShed"
        again = await controller.think(
            lambda: plan_request(module="cognitive_controller"), heuristic_plan
        )
        assert not again.is_heuristic  # never the controller while others can shed
        snap = svc.snapshot()
    assert len(server.requests) == 2  # the reflection call was never sent
    assert events and events[0][0] == "llm_budget"
    assert events[0][1]["shedding"] == ["reflection"]
    per_hour = snap["budget"]["per_hour"]
    assert per_hour["shed_calls"] == {"reflection": 1}
    assert per_hour["spent_usd"] == pytest.approx(2 * (36_000 * 2.5 + 10 * 10) / 1e6)
    assert snap["accounting"]["by_module"]["reflection"]["shed_reasons"] == {"low:budget": 1}


async def test_no_rate_no_shedding(server: FakeOpenAIServer) -> None:
    server.default = FakeReply.json(PLAN, usage=(100_000, 10))
    cfg = settings(server, None)
    async with LLMService(cfg, environ={"PIANO_TEST_KEY": API_KEY}) as svc:
        for _ in range(3):
            got = await svc.brain("reflection", "ann").think(
                lambda: plan_request(module="reflection"), heuristic_plan
            )
            assert not got.is_heuristic
        assert svc.snapshot()["budget"]["per_hour"] is None
