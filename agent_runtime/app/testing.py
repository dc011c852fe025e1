"""Helpers for tests and examples: in-process services with fakes shipped in the package.

``local_services()`` gives an :class:`AgentServices` with fakeredis (if installed), the
in-memory bus, a no-file event log and the cheap hashing encoder — enough to run real
modules and agents without any external process.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agent_runtime.agent_memory import MemoryInbox, MemoryStore, memory_inbox
from agent_runtime.agent_services import AgentServices
from agent_runtime.bus.memory import InMemoryBus
from agent_runtime.clock import Clock
from agent_runtime.config.loader import ResolvedAgent, parse_config
from agent_runtime.config.models import VillageConfig
from agent_runtime.interfaces import Body, Bus
from agent_runtime.llm.brain import Brain, brain_of
from agent_runtime.llm.factory import LLMService
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.run.events import EventLog
from agent_runtime.sched_stats import SchedulerMetrics
from agent_runtime.state.store import StateStore


def config(**sections: Any) -> VillageConfig:
    data: dict[str, Any] = {"agents": [{"name": "Ann"}]}
    data.update(sections)
    return parse_config(data)


def agent_spec(name: str = "Ann", **fields: Any) -> ResolvedAgent:
    base: dict[str, Any] = {
        "name": name,
        "traits": ("You are friendly.",),
        "location_memories": (),
        "spawn_location": None,
        "community_goal": "Survive together.",
    }
    base.update(fields)
    return ResolvedAgent(**base)


@contextlib.asynccontextmanager
async def local_services(
    cfg: VillageConfig | None = None,
    *,
    run_id: str = "test",
    redis: Any = None,
    bus: Bus | None = None,
    llm: LLMService | None = None,
    events_path: Path | None = None,
    time_scale: float | None = None,
) -> AsyncIterator[AgentServices]:
    cfg = cfg or config()
    if redis is None:
        import fakeredis

        redis = fakeredis.FakeAsyncRedis()
    from modules.memory.encoder import HashingEncoder

    async with contextlib.AsyncExitStack() as stack:
        events = await stack.enter_async_context(EventLog(events_path))
        store = await stack.enter_async_context(StateStore(redis, run_id))
        yield AgentServices(
            run_id=run_id,
            config=cfg,
            store=store,
            bus=bus or InMemoryBus(),
            events=events,
            clock=Clock(time_scale=time_scale or cfg.run.time_scale),
            metrics=SchedulerMetrics(),
            redis=redis,
            llm=llm,
            embedder=HashingEncoder(),
        )


def module_context(
    svc: AgentServices,
    module: Module,
    *,
    agent: str = "Ann",
    body: Body | None = None,
    seed: int = 0,
    memory: MemoryInbox | None = None,
    brain: Brain | None = None,
) -> ModuleContext:
    """A :class:`ModuleContext` for calling one module's ``step`` directly in a test, as the
    agent makes it: its brain (``brain``, or the service's for the module), the agent's memory
    inbox (pass one ``memory`` to the contexts of modules of one agent) and, for the module
    that keeps the stream, the memory store.

    Bus triggers of the module's schedule are subscribed so ``ctx.pending`` works.
    """
    import random

    from agent_runtime.body.null import NullBody
    from agent_runtime.bus import topics

    use_llm = svc.config.modules.settings(module.name).policy != "heuristic"
    store = None
    if module.keeps_memory and svc.redis is not None and svc.embedder is not None:
        store = MemoryStore(svc.redis, svc.embedder, svc.store.pipelined)
    ctx = ModuleContext(
        agent=agent,
        module=module.name,
        run_id=svc.run_id,
        state=svc.store.agent(agent),
        bus=svc.bus,
        body=body or NullBody(agent),
        events=svc.events,
        rng=random.Random(seed),
        clock=svc.clock,
        brain=brain or brain_of(svc.llm, module.name, agent, use_llm=use_llm),
        reads=module.sections_read(),
        writes=type(module).writes,
        memory=memory if memory is not None else memory_inbox(),
        memory_store=store,
    )
    for trig in module.schedule.triggers:
        kind, _, what = trig.partition(":")
        if kind == "topic":
            ctx.inbox[trig] = svc.bus.subscribe(topics.agent(svc.run_id, agent, what))
        elif kind == "world":
            ctx.inbox[trig] = svc.bus.subscribe(topics.world(svc.run_id, what))
    return ctx
