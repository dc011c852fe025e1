"""The memory module: stores what other modules queued (its own agent's experiences only)
and refreshes working memory with what it retrieves for the current goal."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.config.module_options import MemoryOptions
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Goals, Identity, WorkingMemory
from modules.base import remember
from modules.memory_module import Memory


async def test_queued_memories_reach_the_stream_and_working_memory() -> None:
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You are kind.",)), writer="runtime")
        st.set("goals", Goals(current="gather wood", kind="gather_wood"), writer="goal_generation")
        mem = Memory(Schedule(cadence=3.0))
        ctx = module_context(svc, mem, agent="Ann")
        await mem.setup(ctx)
        remember(ctx, "I collected 4 oak logs in the forest.", "action")
        await mem.step(ctx)
        stream = mem.slot.stream
        assert stream is not None and await stream.count() >= 2  # seeded trait + the new one
        wm = st.get("working_memory", WorkingMemory)
        assert any("oak logs" in i.text for i in wm.items)
        assert wm.focus == "gather wood" and wm.retrieved


async def test_with_a_model_memories_are_rated_in_batches() -> None:
    """Importance by a model (issue 30): memories reach working memory at once but wait to be
    rated together: one call when ``batch`` of them wait (or the oldest waited ``batch_s``)."""
    from agent_runtime.app.testing import config
    from agent_runtime.llm.brain import Brain
    from agent_runtime.llm.scripted import ScriptedLanguageModel
    from modules.memory.importance import ratings_model

    model = ScriptedLanguageModel(responder=lambda r: ratings_model(3)(ratings=[4, 5, 6]))
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You are kind.",)), writer="runtime")
        mem = Memory(Schedule(cadence=3.0), MemoryOptions(batch=3, batch_s=600.0))
        ctx = module_context(svc, mem, agent="Ann")
        ctx.brain = Brain(model, module="memory", agent="Ann")
        await mem.setup(ctx)
        stream = mem.slot.stream
        assert stream is not None
        seeded = await stream.count()
        for n in range(2):
            remember(ctx, f"I collected {n + 1} oak logs.", "action")
            await mem.step(ctx)
        wm = st.get("working_memory", WorkingMemory)
        assert sum("oak logs" in i.text for i in wm.items) == 2  # in working memory at once
        assert not model.calls and await stream.count() == seeded  # not rated yet
        remember(ctx, "Bob gave me bread.", "observation")
        await mem.step(ctx)
        assert len(model.calls) == 1 and await stream.count() == seeded + 3
        remember(ctx, "I walked home.", "action")
        await mem.step(ctx)
        await mem.teardown(ctx)  # stopping: what waits is stored, rated by the heuristic
        assert len(model.calls) == 1 and await stream.count() == seeded + 4


async def test_an_own_intention_is_stored_but_does_not_add_to_the_reflection_trigger() -> None:
    """The controller's "I decided to ..." is queued ``counted=False``: stored and retrievable,
    but only its outcome, perceived later, adds to the reflection trigger (issue 30)."""
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        mem = Memory(Schedule(cadence=3.0))
        ctx = module_context(svc, mem, agent="Ann")
        await mem.setup(ctx)
        remember(ctx, "I decided to collect 4 oak log.", "action", counted=False)
        await mem.step(ctx)
        stream = mem.slot.stream
        assert stream is not None
        assert any("I decided" in r.text for r in stream.all_records())
        assert await stream.importance_since_reflection() == 0.0
        remember(ctx, "I tried to collect oak_log: collect succeeded (+4 oak_log).", "action")
        await mem.step(ctx)
        assert await stream.importance_since_reflection() > 0.0
