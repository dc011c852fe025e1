"""The memory module's model bill (issue 30, part J): a memory whose text the agent's model
rated before is not sent to be rated again, and the batch waits ``batch_s`` (60 s)."""

from __future__ import annotations

import asyncio

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.config.module_options import BATCH_S, MemoryOptions
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Identity
from modules.base import remember
from modules.memory.importance import ImportanceRating, ratings_model
from modules.memory.llm_policies import ImportanceBrain
from modules.memory_module import Memory

REPEAT = "I tried to collect(block=stone, count=4): collect succeeded (+4 cobblestone)."


async def test_a_text_rated_before_is_not_asked_again() -> None:
    """Two batches with the same texts: the second asks only for the one new text; the
    repeated ones get the model's earlier rating and label (not the heuristic's)."""
    model = ScriptedLanguageModel([ratings_model(2)(ratings=[6, 3]), _one(8)])
    rater = ImportanceBrain(Brain(model, module="memory", agent="Ann"), "A miner.", max_batch=16)
    first = await rater.rate_many([(REPEAT, "action"), ("Bob left.", "observation")])
    assert first == [(6, "llm:scripted"), (3, "llm:scripted")]
    again = await rater.rate_many(
        [(REPEAT, "action"), ("Bob left.", "observation"), ("I found iron.", "observation")]
    )
    assert again == [(6, "llm:scripted"), (3, "llm:scripted"), (8, "llm:scripted")]
    assert len(model.calls) == 2 and rater.reused == 2
    asked = model.calls[1].messages[-1].content
    assert "I found iron" in asked and "cobblestone" not in asked and "Bob" not in asked


async def test_a_text_twice_in_one_batch_is_asked_for_once() -> None:
    model = ScriptedLanguageModel([ratings_model(2)(ratings=[5, 7])])
    rater = ImportanceBrain(Brain(model, module="memory", agent="Ann"), max_batch=16)
    got = await asyncio.gather(
        rater.rate(REPEAT, "action"),
        rater.rate("Cleo died.", "observation"),
        rater.rate(REPEAT, "action"),
    )
    assert [r for r, _ in got] == [5, 7, 5] and len(model.calls) == 1


async def test_the_same_words_of_another_kind_are_asked_and_none_kept_when_off() -> None:
    model = ScriptedLanguageModel([_one(4), _one(6), _one(5), _one(5)])
    rater = ImportanceBrain(Brain(model, module="memory", agent="Ann"))
    await rater.rate("Bob said hello.", "conversation")
    await rater.rate("Bob said hello.", "observation")  # another kind: asked
    assert len(model.calls) == 2
    off = ImportanceBrain(Brain(model, module="memory", agent="Ann"), remember_ratings=0)
    await off.rate(REPEAT, "action")
    await off.rate(REPEAT, "action")
    assert len(model.calls) == 4 and off.reused == 0


def _one(rating: int) -> ImportanceRating:
    return ImportanceRating(rating=rating)


async def test_a_shed_rating_is_not_kept() -> None:
    """A rating that fell back to the heuristic is not the model's: asked again next time."""
    from agent_runtime.llm.errors import LLMError

    model = ScriptedLanguageModel([LLMError("the endpoint is down"), _one(9)])
    rater = ImportanceBrain(Brain(model, module="memory", agent="Ann"))
    _, label = await rater.rate(REPEAT, "action")
    assert label == "heuristic"
    assert await rater.rate(REPEAT, "action") == (9, "llm:scripted")


async def test_the_module_stores_a_repeat_at_once_and_batches_only_new_texts() -> None:
    """With a model: the first time a text waits for a batch; once rated, the same text is
    stored at once with the model's rating (its source the model's label) and never waits;
    the batch's clock is the 60 s ``batch_s``."""
    assert BATCH_S == 60.0
    model = ScriptedLanguageModel(responder=lambda r: ratings_model(2)(ratings=[6, 3]))
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You mine.",)), writer="runtime")
        mem = Memory(Schedule(cadence=3.0), MemoryOptions(batch=2, batch_s=600.0))
        ctx = module_context(svc, mem, agent="Ann")
        ctx.brain = Brain(model, module="memory", agent="Ann")
        await mem.setup(ctx)
        stream = mem.slot.stream
        assert stream is not None
        seeded = await stream.count()
        remember(ctx, REPEAT, "action")
        remember(ctx, "Bob left.", "observation")
        await mem.step(ctx)
        assert len(model.calls) == 1 and await stream.count() == seeded + 2
        for _ in range(3):  # the same outcome again and again: no call, stored at once
            remember(ctx, REPEAT, "action")
            await mem.step(ctx)
        assert len(model.calls) == 1 and await stream.count() == seeded + 5
        repeats = [r for r in stream.all_records() if r.text == REPEAT]
        assert [(r.importance, r.source) for r in repeats] == [(6, "llm:scripted")] * 4
        remember(ctx, "I found iron.", "observation")  # new: waits for the batch
        await mem.step(ctx)
        assert len(model.calls) == 1 and await stream.count() == seeded + 5
