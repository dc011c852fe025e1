"""The memory module stores a step's memories without a task per memory when no model has to
rate them (the heuristic brain, or importance given by the caller): the same records, in the
order they were queued, with the same importance source."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from typing import Any

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Identity
from modules.base import remember
from modules.memory_module import Memory


async def test_heuristic_memories_are_stored_in_order_without_a_task_each() -> None:
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You are kind.",)), writer="runtime")
        mem = Memory(Schedule(cadence=3.0))
        ctx = module_context(svc, mem, agent="Ann")
        await mem.setup(ctx)
        stream = mem.slot.stream
        assert stream is not None
        before = await stream.count()
        texts = [f"I see P{n} nearby." for n in range(20)]
        for n, text in enumerate(texts):
            remember(ctx, text, "observation", importance=7 if n == 3 else None)
        loop = asyncio.get_running_loop()
        made: list[str] = []
        default = loop.get_task_factory()

        def factory(
            lp: asyncio.AbstractEventLoop,
            coro: Generator[Any, None, Any] | Coroutine[Any, Any, Any],
            **kw: Any,
        ) -> asyncio.Future[Any]:
            made.append(getattr(coro, "__qualname__", "?"))
            if default is not None:
                return default(lp, coro, **kw)
            return asyncio.Task(coro, loop=lp, **kw)

        loop.set_task_factory(factory)
        try:
            await mem.step(ctx)
        finally:
            loop.set_task_factory(default)
        assert not [m for m in made if "_rated" in m]
        assert await stream.count() == before + len(texts)
        records = stream.all_records()
        stored = [r for r in records if r.text in texts]
        assert [r.text for r in stored] == texts
        assert {r.source for r in stored if r.text != texts[3]} == {"heuristic"}
        assert next(r for r in stored if r.text == texts[3]).importance == 7
