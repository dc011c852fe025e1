"""Importance ratings: many memories in one low-priority call, or the heuristic."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_runtime.interfaces import LLMRequest
from agent_runtime.llm import Brain, LLMService, ScriptedLanguageModel
from modules.memory.importance import ImportanceRating, heuristic_importance, ratings_model
from modules.memory.llm_policies import ImportanceBrain
from modules.memory.records import MemoryKind

from .conftest import Plan, one_at_a_time, plan_request

ITEMS: list[tuple[str, MemoryKind]] = [
    ("Bob gave me a diamond", "observation"),
    ("I walked to the well", "action"),
    ("Carol died in lava", "observation"),
]


async def test_concurrent_ratings_share_one_request() -> None:
    model = ScriptedLanguageModel([ratings_model(3)(ratings=[7, 2, 9])])
    rater = ImportanceBrain(Brain(model, module="memory", agent="Ann"), "A farmer.")
    # gathered like the memory module does: one request for the three
    results = await asyncio.gather(*(rater.rate(t, k) for t, k in ITEMS))
    assert results == [(7, "llm:scripted"), (2, "llm:scripted"), (9, "llm:scripted")]
    assert rater.batches == 1 and len(model.calls) == 1
    request: LLMRequest[Any] = model.calls[0]
    assert request.response_model is ratings_model(3)
    assert request.prompt_name == "memory.importance_batch"
    user = request.messages[-1].content
    assert "1. [observation]" in user and "3. [observation]" in user and "3 memories" in user


async def test_batch_size_is_capped() -> None:
    model = ScriptedLanguageModel([ratings_model(2)(ratings=[5, 5]), ImportanceRating(rating=4)])
    rater = ImportanceBrain(Brain(model, module="memory", agent="Ann"), max_batch=2)
    pairs = await rater.rate_many(ITEMS)
    assert [r for r, _ in pairs] == [5, 5, 4]
    assert rater.batches == 2


def test_ratings_model_checks_the_count() -> None:
    model = ratings_model(2)
    assert model.model_validate({"ratings": [1, 10]}).ratings == [1, 10]
    with pytest.raises(ValueError):
        model.model_validate({"ratings": [1]})
    with pytest.raises(ValueError):
        model.model_validate({"ratings": [0, 11]})
    schema = model.model_json_schema()["properties"]["ratings"]
    assert (schema["minItems"], schema["maxItems"]) == (2, 2)


async def test_ratings_are_shed_to_the_heuristic_when_the_queue_is_behind() -> None:
    async with LLMService(one_at_a_time(300, normal_s=5)) as svc:
        controller = svc.brain("cognitive_controller", "Ann")
        busy = asyncio.create_task(
            controller.think(plan_request(), lambda: Plan(goal="h", steps=["x"]))
        )
        async with asyncio.timeout(5):
            await svc.limiter.wait_for(lambda lim: lim.in_flight > 0)
        rater = ImportanceBrain(svc.brain("memory", "Ann"))
        pairs = await rater.rate_many(ITEMS)
        await busy
        stats = svc.accounting.stats(module="memory")
    assert pairs == [(heuristic_importance(t, k), "heuristic") for t, k in ITEMS]
    assert (stats.calls, stats.shed) == (1, 1)  # one batched request, shed


async def test_without_a_model_no_request_is_made() -> None:
    rater = ImportanceBrain(Brain(None, module="memory", agent="Ann"))
    assert await rater.rate_many(ITEMS) == [
        (heuristic_importance(t, k), "heuristic") for t, k in ITEMS
    ]
    assert rater.batches == 0
