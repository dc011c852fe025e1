"""The reflection module: past the importance threshold, insights from the agent's own
memories (heuristic policy) land in its reflection section."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.interfaces import Schedule
from agent_runtime.state.sections import Identity, Reflection
from modules.base import remember
from modules.memory_module import Memory
from modules.reflection_module import ReflectionModule


async def test_reflects_once_enough_has_happened() -> None:
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        shared: dict[str, object] = {}
        mem = Memory(Schedule(cadence=3.0))
        mctx = module_context(svc, mem, agent="Ann", shared=shared)
        await mem.setup(mctx)
        for i in range(12):
            remember(
                mctx,
                f"Bob gave me bread number {i} and thanked me warmly.",
                "conversation",
                importance=9,
            )
        await mem.step(mctx)
        ref = ReflectionModule(Schedule(cadence=10.0), threshold=50.0)
        await ref.step(module_context(svc, ref, agent="Ann", shared=shared))
        r = st.get("reflection", Reflection)
        assert r.reflections == 1 and r.insights
