"""The memory module rates a memory about one of its village's topics as the topic file says
(the agent's own Identity), with the heuristic brain and where a model's rating falls back."""

from __future__ import annotations

from pathlib import Path

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.config.loader import load_topic
from agent_runtime.config.module_options import MemoryOptions
from agent_runtime.config.topics import Topic
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Identity
from modules.base import remember
from modules.memory_module import Memory

ROOT = Path(__file__).resolve().parents[2]
TAX = load_topic(ROOT / "experiments/tax/topics/tax.yaml")
LINE = "Ann said she paid her taxes."


async def _rating(topics: tuple[Topic, ...], *, model: ScriptedLanguageModel | None) -> int:
    settings = config(llm={"provider": "openai"}) if model else config()
    async with local_services(settings) as svc:
        st = svc.store.agent("Bob")
        st.set("identity", Identity(name="Bob", topics=topics), writer="runtime")
        mem = Memory(Schedule(cadence=3.0), MemoryOptions(batch=1))
        ctx = module_context(svc, mem, agent="Bob")
        if model:
            ctx.brain = Brain(model, module="memory", agent="Bob")
        await mem.setup(ctx)
        remember(ctx, LINE, "observation")
        await mem.step(ctx)
        await mem.teardown(ctx)
        stream = mem.slot.stream
        assert stream is not None
        (record,) = [r for r in stream.all_records() if r.text == LINE]
        return int(record.importance)


async def test_the_heuristic_rates_a_topic_memory_from_the_agents_topics() -> None:
    assert await _rating((TAX,), model=None) == TAX.importance == 7
    assert await _rating((), model=None) == 2  # no topic: an ordinary observation


async def test_a_failed_model_rating_falls_back_with_the_topics() -> None:
    def garbage(_: object) -> str:
        return "not json"

    model = ScriptedLanguageModel(responder=garbage)
    assert await _rating((TAX,), model=model) == 7
    assert model.calls  # the model was asked, and its answer was not usable
