"""The reflection module: past the importance threshold, insights from the agent's own
memories (heuristic policy) land in its reflection section."""

from __future__ import annotations

from agent_runtime.agent_services import AgentServices
from agent_runtime.app.testing import local_services, module_context
from agent_runtime.config.module_options import ReflectionOptions
from agent_runtime.module import Schedule
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Identity, Reflection
from agent_runtime.state.store import AgentState
from modules.base import remember
from modules.memory_module import Memory, StreamSlot
from modules.reflection_module import ReflectionModule


def _tag(i: int) -> str:
    """A different word for each ``i`` (numbers alone would make repeats: the stream's
    gist ignores them)."""
    return "abcdefghijklmnopqrstuvwxyz"[i % 26] + "abcdefghijklmnopqrstuvwxyz"[i // 26 % 26]


async def _ann(svc: AgentServices) -> tuple[AgentState, StreamSlot, Memory, ModuleContext]:
    """Ann's state, memory stream slot, memory module and its context (the stream set up)."""
    st = svc.store.agent("Ann")
    st.set("identity", Identity(name="Ann"), writer="runtime")
    mem = Memory(Schedule(cadence=3.0))
    mctx = module_context(svc, mem, agent="Ann")
    await mem.setup(mctx)
    return st, mem.slot, mem, mctx


async def test_reflects_once_enough_has_happened() -> None:
    async with local_services() as svc:
        st, slot, mem, mctx = await _ann(svc)
        for i in range(12):
            remember(
                mctx,
                f"Bob gave me bread number {_tag(i)} and thanked me warmly.",
                "conversation",
                importance=9,
            )
        await mem.step(mctx)
        ref = ReflectionModule(Schedule(cadence=10.0), ReflectionOptions(threshold=50.0), slot)
        await ref.step(module_context(svc, ref, agent="Ann", memory=mctx.memory))
        r = st.get("reflection", Reflection)
        assert r.reflections == 1 and r.insights


async def test_reflects_only_past_150_and_then_starts_counting_again() -> None:
    """The paper's trigger (importance summed since the last reflection > 150), at the
    module's default, stepped often: not more often than that."""
    async with local_services() as svc:
        st, slot, mem, mctx = await _ann(svc)
        ref = ReflectionModule(Schedule(cadence=10.0), slot=slot)  # the default: the paper's 150
        rctx = module_context(svc, ref, agent="Ann", memory=mctx.memory)

        async def add(n: int, start: int) -> None:
            for i in range(start, start + n):
                remember(
                    mctx,
                    f"Bob traded me {_tag(i)} iron ingots for bread at the farm.",
                    "conversation",
                    importance=10,
                )
            await mem.step(mctx)

        await add(15, 0)  # 150: the trigger needs more than 150
        for _ in range(3):
            await ref.step(rctx)
        r = st.get("reflection", Reflection)
        assert r.reflections == 0 and r.importance_since == 150
        await add(1, 15)  # 160 > 150
        await ref.step(rctx)
        await ref.step(rctx)  # stepping again right away does not reflect again
        r = st.get("reflection", Reflection)
        assert r.reflections == 1 and r.insights
        assert r.importance_since < 150  # the 160 were consumed by the reflection
        await add(14, 16)
        await ref.step(rctx)
        assert st.get("reflection", Reflection).reflections == 1
