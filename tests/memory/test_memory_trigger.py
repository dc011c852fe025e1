"""What adds to the reflection trigger (Generative Agents: the importance of perceived
events, each counted once while it is among the latest five), and a reflection's insights
for all its questions in one model call."""

from __future__ import annotations

import random
from typing import Any

from redis.asyncio import Redis

from agent_runtime.llm import Brain, ScriptedLanguageModel
from modules.memory import (
    HashingEncoder,
    HeuristicReflection,
    MemoryStream,
    NewMemory,
    ReflectionBrain,
    ReflectionConfig,
    ReflectionQuestions,
    Reflector,
)
from modules.memory.reflection import AllInsights


async def _stream(redis: Redis, clock: Any = lambda: 1.0) -> MemoryStream:
    return await MemoryStream.open(
        redis, run="r", agent="Ann", encoder=HashingEncoder(), clock=clock
    )


async def test_plans_and_own_intentions_do_not_add_to_the_trigger(redis: Redis) -> None:
    s = await _stream(redis)
    await s.add("From 06:00 to 10:00 I plan to gather wood.", "plan", importance=5)
    await s.add_many([NewMemory("I decided to collect oak log.", "action", 3, counted=False)])
    assert await s.importance_since_reflection() == 0.0
    await s.add("I tried to collect oak_log: collect succeeded (+4 oak_log).", "action", 3)
    assert await s.importance_since_reflection() == 3.0


async def test_a_repeat_among_the_latest_five_does_not_add_again(redis: Redis) -> None:
    s = await _stream(redis)
    outcome = "I tried to collect(block=oak_log, count={n}): collect succeeded (+{n} oak_log)."
    for n in (4, 3, 4, 2):  # the same event, only the numbers differ: counted once
        await s.add(outcome.format(n=n), "action", 3)
    assert await s.importance_since_reflection() == 3.0
    for who in ("Bob", "Cleo", "Dario", "Edda", "Finn"):  # five other events
        await s.add(f"I see {who} nearby.", "observation", 2)
    assert await s.importance_since_reflection() == 13.0
    await s.add(outcome.format(n=4), "action", 3)  # no longer among the latest five: anew
    assert await s.importance_since_reflection() == 16.0
    assert s.counted_since_reflection == 7
    await s.mark_reflected()
    assert s.counted_since_reflection == 0


async def test_retention_zero_counts_every_record(redis: Redis) -> None:
    s = await MemoryStream.open(
        redis, run="r", agent="Ann", encoder=HashingEncoder(), clock=lambda: 1.0, retention=0
    )
    for _ in range(3):
        await s.add("Bob left.", "observation", 2)
    assert await s.importance_since_reflection() == 6.0


async def test_the_insights_of_all_questions_come_in_one_call(redis: Redis) -> None:
    s = await _stream(redis)
    for i, text in enumerate(["Bob gave me bread", "Bob fixed my roof", "Cleo found iron ore"]):
        await s.add(text, "conversation", importance=10, created=float(i))
    questions = ["Is Bob kind?", "Who helps me?", "What did Cleo find?"]
    model = ScriptedLanguageModel(
        [
            ReflectionQuestions(questions=questions),
            AllInsights.model_validate(
                {
                    "answers": [
                        [{"text": "Bob is kind to me", "evidence": [1, 2]}],
                        [{"text": "Bob helps me most", "evidence": [2]}],
                        [{"text": "Cleo finds ore", "evidence": [3]}],
                    ]
                }
            ),
        ]
    )
    policy = ReflectionBrain(
        Brain(model, module="reflection", agent="Ann"),
        "You are Ann.",
        HeuristicReflection(random.Random(0), "Ann"),
    )
    result = await Reflector(
        policy.ask_questions,
        policy.make_insights,
        config=ReflectionConfig(threshold=20.0, k_per_question=3),
        source=lambda: policy.label,
        make_all_insights=policy.make_all_insights,
    ).maybe_reflect(s, now=5.0)
    assert result is not None
    assert len(model.calls) == 2  # the questions, then every question's insights at once
    assert model.calls[1].response_model is AllInsights
    prompt = model.calls[1].messages[1].content
    assert all(f'"{q}"' in prompt for q in questions)
    texts = {r.text: r for r in result.reflections}
    assert set(texts) == {"Bob is kind to me", "Bob helps me most", "Cleo finds ore"}
    by_text = {r.text: r.id for r in await s.recent(10)}
    assert texts["Cleo finds ore"].evidence == (by_text["Cleo found iron ore"],)
    assert all(r.source == "llm:scripted" for r in result.reflections)
    # the questions were asked about what counted since the last reflection: 3 records
    assert "Cleo found iron ore" in model.calls[0].messages[1].content
