"""An Agent: its modules running concurrently in one TaskGroup, over one Agent State."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Sequence

from agent_runtime.agent_memory import MemoryStore, memory_inbox
from agent_runtime.agent_services import AgentServices
from agent_runtime.bus import topics
from agent_runtime.bus.messages import AgentStatus
from agent_runtime.config.loader import ResolvedAgent
from agent_runtime.interfaces import Body
from agent_runtime.llm.brain import brain_of
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.scheduling import ModuleRunner
from agent_runtime.state.sections import Identity
from agent_runtime.state.store import AgentState

log = logging.getLogger(__name__)


class Agent:
    """Async context manager: entering loads the state from Redis and starts one named task
    per module (``agent[<name>].<module>``); exiting cancels and awaits them, then checkpoints
    every module's ``get_state()`` and flushes."""

    def __init__(
        self,
        spec: ResolvedAgent,
        modules: Sequence[Module],
        body: Body,
        services: AgentServices,
        rng: random.Random,
    ) -> None:
        names = [m.name for m in modules]
        if len(set(names)) != len(names):
            raise ValueError(f"agent {spec.name}: duplicate modules {names}")
        self.spec = spec
        self.name = spec.name
        self.modules = list(modules)
        self.body = body
        self.services = services
        self.rng = rng
        self.contexts: dict[str, ModuleContext] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.runners: list[ModuleRunner] = []
        self._stack: contextlib.AsyncExitStack | None = None

    @property
    def state(self) -> AgentState:
        return self.services.store.agent(self.name)

    async def __aenter__(self) -> Agent:
        svc = self.services
        state = await svc.store.load_agent(self.name)
        ident = Identity(
            name=self.spec.name,
            traits=self.spec.traits,
            community_goal=self.spec.community_goal,
            location_memories=self.spec.location_memories,
            gifts=svc.config.gifts,
            topics=svc.config.topics,
        )
        state.set("identity", ident, writer="runtime")
        inbox = memory_inbox()  # the agent's one memory inbox, shared by its modules
        store = self._memory_store()
        for module in self.modules:
            saved = state.module_state(module.name)
            if saved:
                module.set_state(saved)
            use_llm = svc.config.modules.settings(module.name).policy != "heuristic"
            self.contexts[module.name] = ModuleContext(
                agent=self.name,
                module=module.name,
                run_id=svc.run_id,
                state=state,
                bus=svc.bus,
                body=self.body,
                events=svc.events,
                rng=random.Random(self.rng.getrandbits(64)),
                clock=svc.clock,
                brain=brain_of(svc.llm, module.name, self.name, use_llm=use_llm),
                reads=module.sections_read(),
                writes=type(module).writes,
                memory=inbox,
                memory_store=store if module.keeps_memory else None,
            )
        self._stack = contextlib.AsyncExitStack()
        tg = await self._stack.enter_async_context(asyncio.TaskGroup())
        for module in self.modules:
            runner = ModuleRunner(
                module,
                self.contexts[module.name],
                time_scale=svc.clock.time_scale,
                metrics=svc.metrics,
                rng=random.Random(self.rng.getrandbits(64)),
            )
            runner.install_triggers()
            self.runners.append(runner)
            self.tasks[module.name] = tg.create_task(
                runner.run(), name=f"agent[{self.name}].{module.name}"
            )
        self.tasks["body_events"] = tg.create_task(
            self._pump_body_events(), name=f"agent[{self.name}].body_events"
        )
        await svc.bus.publish(
            topics.agent(svc.run_id, self.name, "status"),
            AgentStatus(status="started", modules=tuple(m.name for m in self.modules)),
        )
        return self

    def _memory_store(self) -> MemoryStore | None:
        """Where the agent's memory stream is kept: None without Redis or an encoder."""
        svc = self.services
        if svc.redis is None or svc.embedder is None:
            return None
        return MemoryStore(svc.redis, svc.embedder, svc.store.pipelined)

    async def _pump_body_events(self) -> None:
        """Body events -> the agent's ``event`` topic (perception consumes it) and events.jsonl."""
        svc = self.services
        topic = topics.agent(svc.run_id, self.name, "event")
        async for ev in self.body.events():
            if ev.kind not in ("chat", "whisper"):
                svc.events.emit("body_event", self.name, kind=ev.kind, data=ev.data)
            try:
                await svc.bus.publish(topic, ev)
            except Exception:
                log.exception("agent[%s]: could not publish body event", self.name)

    def request_stop(self) -> None:
        """Cancel every module task now (no await); ``__aexit__`` then only collects them.

        A village calls this on all agents first, so a large village stops at once instead
        of one agent at a time while the others keep running."""
        for runner in self.runners:
            runner.stop()
        for task in self.tasks.values():
            task.cancel()

    async def __aexit__(self, *exc: object) -> None:
        self.request_stop()
        if self._stack is not None:
            stack, self._stack = self._stack, None
            with contextlib.suppress(asyncio.CancelledError):
                await stack.aclose()
        state = self.services.store.agent(self.name)
        for module in self.modules:
            ctx = self.contexts.get(module.name)
            try:
                if ctx is not None:
                    await module.teardown(ctx)
                state.set_module_state(module.name, module.get_state())
            except Exception:
                log.exception("agent[%s].%s teardown failed", self.name, module.name)
        with contextlib.suppress(Exception):
            await self.services.bus.publish(
                topics.agent(self.services.run_id, self.name, "status"),
                AgentStatus(status="stopped"),
            )
