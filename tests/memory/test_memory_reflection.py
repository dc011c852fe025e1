"""Reflection trigger, evidence links and the heuristic policies."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from modules.memory import (
    HashingEncoder,
    HeuristicReflection,
    Insight,
    MemoryRecord,
    MemoryStream,
    ReflectionConfig,
    Reflector,
    should_reflect,
)


def _tag(i: int) -> str:
    """A different word for each ``i`` (numbers alone would make repeats: the stream's
    gist ignores them)."""
    return "abcdefghijklmnopqrstuvwxyz"[i % 26] + "abcdefghijklmnopqrstuvwxyz"[i // 26 % 26]


async def open_stream(redis: Redis, clock: Any) -> MemoryStream:
    return await MemoryStream.open(
        redis, run="run1", agent="Ann", encoder=HashingEncoder(), clock=clock
    )


class Scripted:
    """Policies that return fixed answers and record what they were shown."""

    def __init__(self, questions: list[str], insights: list[Insight]) -> None:
        self.questions = questions
        self.insights = insights
        self.seen_recent: list[MemoryRecord] = []
        self.shown: dict[str, list[MemoryRecord]] = {}

    async def ask(self, records: Sequence[MemoryRecord], n: int) -> list[str]:
        self.seen_recent = list(records)
        return self.questions[:n]

    async def insight(
        self, question: str, records: Sequence[MemoryRecord], max_insights: int
    ) -> list[Insight]:
        self.shown[question] = list(records)
        return self.insights


def test_trigger_is_strictly_greater_than_threshold() -> None:
    assert not should_reflect(150.0)
    assert should_reflect(150.5)
    assert should_reflect(11, threshold=10)


async def test_maybe_reflect_fires_only_above_threshold(redis: Redis, clock: Any) -> None:
    s = await open_stream(redis, clock)
    policy = Scripted(["What about Bob?"], [Insight(text="Bob is generous", evidence=[1])])
    await s.seed_from_identity(["You are Ann."])  # seeds do not count
    await s.add("Bob gave me bread", "reflection", 9)  # reflections do not count
    for i in range(15):
        await s.add(f"Bob gave me gift {_tag(i)}", "observation", importance=10)
    assert await s.importance_since_reflection() == 150.0
    assert await Reflector(policy.ask, policy.insight).maybe_reflect(s) is None
    await s.add("Bob gave me a gift again", "conversation", importance=1)
    result = await Reflector(policy.ask, policy.insight).maybe_reflect(s)
    assert result is not None
    assert result.consumed == 151.0
    assert await s.importance_since_reflection() == 0.0
    assert s.reflections == 1
    assert await Reflector(policy.ask, policy.insight).maybe_reflect(s) is None


async def test_insights_are_stored_with_evidence_links(redis: Redis, clock: Any) -> None:
    s = await open_stream(redis, clock)
    texts = [
        "Bob gave me bread",
        "Bob helped me build a wall",
        "I walked to the lake",
        "Bob gave Cara a pickaxe",
    ]
    for i, t in enumerate(texts):
        clock.t = float(i)
        await s.add(t, "observation", importance=5)
    clock.t = 10.0
    policy = Scripted(
        ["Is Bob generous?", "What is going on at the lake?"],
        [
            Insight(text="Bob is generous to everyone", evidence=[1, 3, 99, 1]),
            Insight(text="An unfounded claim", evidence=[0, 42]),
            Insight(text="  ", evidence=[1]),
        ],
    )
    cfg = ReflectionConfig(n_questions=2, k_per_question=3, token_budget=None)
    result = await Reflector(policy.ask, policy.insight, config=cfg, source="llm:test").reflect(s)
    assert result.questions == ["Is Bob generous?", "What is going on at the lake?"]
    assert [r.created for r in policy.seen_recent] == [0.0, 1.0, 2.0, 3.0]
    # per question: 3 retrieved records, shown oldest first, numbered from 1
    shown = policy.shown["Is Bob generous?"]
    assert len(shown) == 3 and [r.created for r in shown] == sorted(r.created for r in shown)
    # insight 1 cites shown[0] and shown[2] (99 is out of range, repeats collapse)
    assert len(result.reflections) == 1  # the same text from question 2 is a repeat
    refl = result.reflections[0]
    assert refl.kind == "reflection" and refl.source == "llm:test" and refl.created == 10.0
    assert refl.evidence == (shown[0].id, shown[2].id)
    assert result.retrieved["Is Bob generous?"] == [r.id for r in shown]
    assert result.dropped == 4  # 2 questions x (no valid evidence + empty text)
    assert result.duplicates == 1
    # evidence ids resolve to the stored records
    cited = await s.get(refl.evidence)
    assert all(r.kind == "observation" for r in cited)
    # retrieval during reflection refreshed last access of what was shown
    assert all(r.last_accessed == 10.0 for r in await s.get([x.id for x in shown]))
    # a second reflection with the same insight does not store it again
    result2 = await Reflector(policy.ask, policy.insight, config=cfg).reflect(s)
    assert result2.reflections == [] and result2.duplicates == 2


async def test_questions_see_reflections_too(redis: Redis, clock: Any) -> None:
    s = await open_stream(redis, clock)
    earlier = await s.add("Bob is a reliable trading partner", "reflection", 7)
    await s.add("Bob sold me wheat", "observation", 4)
    policy = Scripted(["Bob?"], [Insight(text="I rely on Bob for food", evidence=[1, 2])])
    cfg = ReflectionConfig(n_questions=1, k_per_question=5)
    result = await Reflector(policy.ask, policy.insight, config=cfg).reflect(s)
    assert earlier.id in result.retrieved["Bob?"]
    assert set(result.reflections[0].evidence) == {earlier.id, earlier.id + 1}


async def test_importance_added_during_reflection_is_kept(redis: Redis, clock: Any) -> None:
    s = await open_stream(redis, clock)
    for i in range(16):
        await s.add(f"Bob attacked me, time {_tag(i)}", "observation", importance=10)
    policy = Scripted(["Why did Bob attack me?"], [Insight(text="Bob is hostile", evidence=[1])])

    async def ask_while_busy(records: Sequence[MemoryRecord], n: int) -> list[str]:
        await s.add("Cara gave me a sword", "observation", importance=6)
        return await policy.ask(records, n)

    result = await Reflector(ask_while_busy, policy.insight).maybe_reflect(s)
    assert result is not None and result.consumed == 160.0
    assert await s.importance_since_reflection() == 6.0


async def test_heuristic_policy_is_deterministic_and_grounded(redis: Redis, clock: Any) -> None:
    s = await open_stream(redis, clock)
    events = [
        ("Bob gave me bread at the farm", 6),
        ("I walked to the farm", 2),
        ("Bob attacked a zombie near the farm", 7),
        ("Cara voted for the tax amendment", 7),
        ("Bob gave Cara an iron pickaxe", 6),
        ("I mined iron in the cave", 5),
        ("Cara argued with Bob about the tax", 7),
    ]
    for i, (text, imp) in enumerate(events * 4):
        clock.t = i * 0.25
        await s.add(text, "observation", importance=imp)
    assert await s.importance_since_reflection() > 150

    async def run(seed: int) -> list[tuple[str, tuple[int, ...]]]:
        h = HeuristicReflection(random.Random(seed), agent="Ann")
        questions = await h.ask_questions(await s.recent(100), 3)
        assert len(questions) == 3
        recs = await s.recent(20)
        out = []
        for q in questions:
            for ins in await h.make_insights(q, recs, 5):
                out.append((ins.text, tuple(ins.evidence)))
        return out

    assert await run(7) == await run(7)

    h = HeuristicReflection(random.Random(3), agent="Ann")
    questions = await h.ask_questions(await s.recent(100), 3)
    assert any("Bob" in q for q in questions)  # a name keeps its capital letter
    result = await Reflector(h.ask_questions, h.make_insights).maybe_reflect(s, now=10.0)
    assert result is not None and result.reflections
    for refl in result.reflections:
        assert refl.kind == "reflection" and refl.evidence
        topic = refl.text.split(" keeps coming up")[0].lower()
        for ev in await s.get(refl.evidence):
            assert topic in ev.text.lower()  # every cited record supports the insight
    assert await s.importance_since_reflection() == 0.0


async def test_heuristic_questions_pad_when_few_topics() -> None:
    h = HeuristicReflection(random.Random(0))
    assert await h.ask_questions([], 3) == ["What matters most to me right now?"] * 3
