"""The memory module: stores what other modules queued (its own agent's experiences only)
and refreshes working memory with what it retrieves for the current goal."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.interfaces import Schedule
from agent_runtime.state.sections import Goals, Identity, WorkingMemory
from modules.base import remember
from modules.memory_module import Memory, memory_stream


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
        stream = memory_stream(ctx)
        assert stream is not None and await stream.count() >= 2  # seeded trait + the new one
        wm = st.get("working_memory", WorkingMemory)
        assert any("oak logs" in i.text for i in wm.items)
        assert wm.focus == "gather wood" and wm.retrieved
