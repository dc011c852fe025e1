"""The LLM bill: the simulated endpoint with the heuristic's content, cacheable prefixes,
cached-input prices and the per agent-hour table (issue 30)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from pydantic import BaseModel

from agent_runtime.config.llm import DEFAULT_PRICES, LLMSettings, ModelPrice
from agent_runtime.interfaces import LLMRequest, Message, Usage
from agent_runtime.llm import Accounting, FakeOpenAIServer, FakeReply, LLMService
from agent_runtime.llm.accounting import PriceTable
from agent_runtime.llm.cost import cost_table, per_agent_hour_lines, window
from agent_runtime.llm.simulated import (
    ANY_PREFIX,
    HEURISTIC_CONTENT,
    OPENAI_CACHE,
    SimulatedLanguageModel,
    common_prefix_len,
)

from .conftest import API_KEY, PLAN, Plan, plan_request


class Choice(BaseModel):
    action: str
    steps: int = 1


def choice_request(agent: str = "ann", user: str = "What now?") -> LLMRequest[Choice]:
    return LLMRequest(
        module="cognitive_controller",
        agent=agent,
        messages=(Message("system", "You decide. " * 40), Message("user", user)),
        response_model=Choice,
    )


def settings(content: str) -> LLMSettings:
    return LLMSettings(
        provider="simulated",
        simulated_latency_ms=0,
        simulated_content=content,
        log_prompts=False,
    )


async def test_heuristic_content_is_the_heuristics_decision_labelled_simulated() -> None:
    rng = random.Random(4)
    decided: list[Choice] = []

    def heuristic() -> Choice:
        out = Choice(action=f"chop tree {rng.randint(1, 10**6)}", steps=rng.randint(2, 9))
        decided.append(out)
        return out

    async with LLMService(settings("heuristic")) as svc:
        brain = svc.brain("cognitive_controller", "ann")
        thought = await brain.think(lambda: choice_request(), heuristic)
        summary = svc.accounting.summary()["cognitive_controller"]
    assert decided and thought.value is decided[-1]  # the heuristic's own decision, once
    assert len(decided) == 1
    assert thought.brain == HEURISTIC_CONTENT
    assert not thought.is_heuristic  # an endpoint answered: a model call, not a fallback
    assert thought.result is not None
    assert thought.result.usage.completion_tokens == len(decided[0].model_dump_json()) // 4
    assert summary["ok"] == 1 and summary["heuristic"] == 0


async def test_schema_content_stays_the_default() -> None:
    async with LLMService(settings("schema")) as svc:
        brain = svc.brain("cognitive_controller", "ann")
        thought = await brain.think(lambda: choice_request(), lambda: Choice(action="chop"))
    assert thought.brain == "llm:simulated"
    assert thought.value.action != "chop"


async def test_async_heuristic_and_sibling_type() -> None:
    class Other(BaseModel):
        action: str
        steps: int = 3

    async def heuristic() -> Choice:
        return Other(action="mine")  # type: ignore[return-value]

    async with LLMService(settings("heuristic")) as svc:
        brain = svc.brain("planning", "bob")
        thought = await brain.think(lambda: choice_request("bob"), heuristic)
    assert thought.value == Choice(action="mine", steps=3)
    assert thought.brain == HEURISTIC_CONTENT


def test_common_prefix_len() -> None:
    assert common_prefix_len("", "abc") == 0
    assert common_prefix_len("abcdef", "abcxyz") == 3
    assert common_prefix_len("abc", "abc") == 3
    assert common_prefix_len("abc", "abcd") == 3
    assert common_prefix_len("xbc", "abc") == 0


async def test_cached_prefix_is_shared_with_earlier_prompts_of_the_module() -> None:
    """A local server's rule (any shared prefix): the same agent's previous prompt and the
    module's latest prompt of any agent are both prefixes a provider's cache holds."""
    model = SimulatedLanguageModel(0, cache_rule=ANY_PREFIX)
    first = await model.complete(choice_request("ann", "What now? tick 1"))
    other_agent = await model.complete(choice_request("bob", "Going? tick 1"))
    second = await model.complete(choice_request("ann", "What now? tick 2"))
    assert first.usage.cached_tokens == 0  # nothing before it
    fixed = len("<|system|>" + "You decide. " * 40 + "<|user|>")
    assert other_agent.usage.cached_tokens == fixed // 4  # ann's prompt shares the fixed part
    shared = len("<|system|>" + "You decide. " * 40 + "<|user|>What now? tick ")
    assert second.usage.cached_tokens == shared // 4  # its own previous prompt shares more
    assert 0 < second.usage.cached_tokens < second.usage.prompt_tokens
    off = await SimulatedLanguageModel(0, prefix_cache=False).complete(choice_request())
    assert off.usage.cached_tokens == 0


def test_openai_cache_rule_counts_1024_tokens_then_128_token_steps() -> None:
    rule = OPENAI_CACHE
    assert rule.cached(prompt_tokens=900, shared_tokens=900) == 0  # a short prompt: no cache
    assert rule.cached(prompt_tokens=2000, shared_tokens=1000) == 0  # prefix under 1,024
    assert rule.cached(prompt_tokens=2000, shared_tokens=1024) == 1024
    assert rule.cached(prompt_tokens=2000, shared_tokens=1300) == 1024 + 2 * 128
    assert rule.cached(prompt_tokens=1100, shared_tokens=5000) == 1024  # never past the prompt
    assert ANY_PREFIX.cached(prompt_tokens=300, shared_tokens=123) == 123


async def test_simulated_endpoint_reports_no_cache_for_short_prompts_by_default() -> None:
    """The default rule is OpenAI's: a ~130-token prompt repeated word for word is billed
    in full, as gpt-4o would bill it; a prompt past 1,024 tokens gets its prefix cached."""
    model = SimulatedLanguageModel(0)
    await model.complete(choice_request("ann", "What now?"))
    again = await model.complete(choice_request("ann", "What now?"))
    assert again.usage.cached_tokens == 0
    long = LLMRequest(
        module="planning",
        agent="ann",
        messages=(Message("system", "Plan the day. " * 400), Message("user", "hour 1")),
        response_model=Choice,
    )
    await model.complete(long)
    hit = await model.complete(replace(long, messages=(long.messages[0], Message("user", "2"))))
    assert hit.usage.prompt_tokens > 1024
    assert hit.usage.cached_tokens >= 1024 and (hit.usage.cached_tokens - 1024) % 128 == 0


def test_cached_input_is_priced_at_the_cached_price() -> None:
    prices = PriceTable()
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=100_000, cached_tokens=400_000)
    # gpt-4o: 600k at $2.50/M + 400k at $1.25/M + 100k at $10/M
    assert prices.cost("gpt-4o", usage) == pytest.approx(1.5 + 0.5 + 1.0)
    assert prices.cost("gpt-4o-mini-2024-07-18", usage) == pytest.approx(0.09 + 0.03 + 0.06)
    assert prices.cost("local", usage) == 0.0
    no_cache_price = PriceTable({"m": ModelPrice(input_per_mtok=2.0, output_per_mtok=0.0)})
    assert no_cache_price.cost("m", usage) == pytest.approx(2.0)  # no cached price: full
    assert DEFAULT_PRICES["gpt-4o"].cached_input == 1.25


def test_cost_table_per_agent_hour_and_window() -> None:
    start = {"planning": {"calls": 2, "prompt_tokens": 100, "completion_tokens": 10}}
    end = {
        "planning": {
            "calls": 12,
            "prompt_tokens": 1_100,
            "cached_tokens": 400,
            "completion_tokens": 210,
        },
        "talking": {"calls": 5, "prompt_tokens": 500, "completion_tokens": 50},
    }
    w = window(end, start)
    assert w["planning"]["calls"] == 10 and w["planning"]["prompt_tokens"] == 1_000
    assert w["planning"]["cached_tokens"] == 400
    table = cost_table(w, agent_hours=0.5)
    assert table["planning"]["calls_per_agent_hour"] == 20
    assert table["all"]["calls"] == 15
    assert table["all"]["tokens_per_agent_hour"] == (1_000 + 200 + 500 + 50) * 2
    gpt4o = (600 * 2.5 + 400 * 1.25 + 200 * 10 + 500 * 2.5 + 50 * 10) / 1e6 * 2
    assert table["all"]["usd_per_agent_hour"]["gpt-4o"] == pytest.approx(gpt4o, abs=1e-4)
    assert table["all"]["usd_per_agent_hour"]["local"] == 0.0
    lines = per_agent_hour_lines(table)
    assert lines[0].startswith("per agent-hour")
    assert table["all"]["model_usd_per_agent_hour"] == 0.0  # no cost_usd recorded here


def test_agent_hours_run_from_the_first_decision() -> None:
    now = [50.0]
    acc = Accounting(clock=lambda: now[0])
    assert acc.agent_hours() == 0.0
    acc.record_heuristic("planning", "ann")
    now[0] += 1800.0
    acc.record_heuristic("planning", "bob")
    now[0] += 1800.0
    assert acc.agent_hours() == pytest.approx(2.0)  # two agents, one hour since the first


async def test_end_of_run_lines_per_agent_hour_at_the_models_price(
    server: FakeOpenAIServer,
) -> None:
    server.default = FakeReply.json(PLAN, usage=(1_000, 100), cached_tokens=400)
    cfg = LLMSettings(
        provider="openai",
        base_url=server.base_url,
        api_key_env="PIANO_TEST_KEY",
        model="gpt-4o",
        log_prompts=False,
    )
    async with LLMService(cfg, environ={"PIANO_TEST_KEY": API_KEY}) as svc:
        for agent in ("ann", "bob"):
            brain = svc.brain("planning", agent)
            got = await brain.think(plan_request(agent), lambda: Plan(goal="x", steps=["y"]))
            assert not got.is_heuristic
        lines = svc.report(agent_hours=0.5)
        table = svc.per_agent_hour(0.5)
    per_call = (600 * 2.5 + 400 * 1.25 + 100 * 10) / 1e6
    assert table["all"]["model_usd_per_agent_hour"] == pytest.approx(2 * per_call / 0.5, abs=1e-4)
    assert table["planning"]["calls_per_agent_hour"] == 4
    assert table["all"]["cached_tokens_per_agent_hour"] == 1_600
    assert any(line.startswith("per agent-hour") for line in lines)
    all_line = next(line for line in lines if line.startswith("all "))
    assert all_line.split() == ["all", "4", "4,400", "1,600", f"{2 * per_call / 0.5:.4f}"]
