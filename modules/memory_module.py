"""The memory module: owns the agent's memory stream (working, short- and long-term memory).

Other modules queue records with :func:`modules.base.remember`; each step this
module stores the queued records (importance rated by the LLM when one is
configured for it, by the heuristic rater otherwise; embeddings from the shared
encoder), seeds the stream from the YAML identity on first start, and refreshes
the ``working_memory`` section: the latest items plus the memories retrieved for
the current focus (goal / decision) with the Generative Agents score.

With a model rating importance, new memories go to working memory at once, but are rated
and stored in batches (one call for up to ``batch`` memories, option, default 16): when that
many wait, or the oldest has waited ``batch_s`` (option, default 30 agent's seconds).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, ClassVar

from agent_runtime.config.module_options import MemoryOptions
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Decision, Goals, Identity, WorkingMemory, WorkingMemoryItem
from modules.base import PendingMemory
from modules.memory.importance import topic_rater
from modules.memory.llm_policies import ImportanceBrain
from modules.memory.records import NewMemory
from modules.memory.store import MemoryStream

log = logging.getLogger(__name__)

WM_ITEMS = 12
RETRIEVE_K = 6
RETRIEVE_TOKENS = 350
REFRESH_S = 30.0


@dataclass
class StreamSlot:
    """The agent's memory stream once the memory module opened it: one per agent, made with
    its modules (``modules.registry``) and handed to the memory module, which opens it, and
    to those that read it (talking, reflection)."""

    stream: MemoryStream | None = None


class Memory(Module):
    name: ClassVar[str] = "memory"
    reads: ClassVar[frozenset[str]] = frozenset({"identity", "goals", "decision", "working_memory"})
    writes: ClassVar[frozenset[str]] = frozenset({"working_memory"})
    keeps_memory: ClassVar[bool] = True

    def __init__(
        self, schedule: Any, options: MemoryOptions | None = None, slot: StreamSlot | None = None
    ) -> None:
        super().__init__(schedule)
        self.slot = slot or StreamSlot()
        o = options or MemoryOptions()
        self.decay = o.decay
        self.weights = o.weights
        self.batch = o.batch
        self.batch_s = o.batch_s
        #: the model's ratings kept for repeated memories (0: every memory waits for a call)
        self.remember_ratings = o.remember_ratings
        self._unrated: list[PendingMemory] = []  # waiting for a model's batch rating
        self._focus = ""
        self._focus_at = 0.0
        self.stored = 0
        self._rater: ImportanceBrain | None = None

    def get_state(self) -> dict[str, Any]:
        return {"stored": self.stored}

    def set_state(self, state: Any) -> None:
        self.stored = int(state.get("stored", 0))

    async def setup(self, ctx: ModuleContext) -> None:
        if self.slot.stream is not None:
            return
        store = ctx.memory_store
        if store is None:
            raise RuntimeError("the memory module needs Redis and an embedder")
        ident = ctx.read("identity", Identity)
        stream = await MemoryStream.open(
            store.redis,
            run=ctx.run_id,
            agent=ctx.agent,
            encoder=store.encoder,
            clock=ctx.clock.game_hours,
            writer=store.writer,  # this tick's writes of every agent in one round trip
            rater=topic_rater(ident.topics),  # the village's topics are the agent's own data
        )
        seeded = await stream.seed_from_identity(
            ident.traits, ident.location_memories, ident.community_goal
        )
        if seeded:
            ctx.emit("memory_seeded", records=len(seeded))
        self.slot.stream = stream

    def _rated_now(
        self, ctx: ModuleContext, item: PendingMemory, rater: ImportanceBrain | None
    ) -> NewMemory | None:
        """The memory with its importance from the caller, or unrated for the heuristic rater
        when there is no model; None when the model must rate it (:meth:`_rated`)."""
        if item.importance is None and rater is not None:
            return None
        source = "caller" if item.importance is not None else "heuristic"
        created = ctx.clock.game_hours(item.at)
        return NewMemory(
            item.text, item.kind, item.importance, item.evidence, created, source, item.counted
        )

    async def _rated(self, ctx: ModuleContext, item: PendingMemory) -> NewMemory:
        """Importance from the caller, else the LLM (when configured), else the heuristic rater."""
        rater = self._importance_brain(ctx)
        now = self._rated_now(ctx, item, rater)
        if now is not None:
            return now
        assert rater is not None  # without a model every memory is rated now
        rating, label = await rater.rate(item.text, item.kind)
        created = ctx.clock.game_hours(item.at)
        return NewMemory(item.text, item.kind, rating, item.evidence, created, label, item.counted)

    def _importance_brain(self, ctx: ModuleContext) -> ImportanceBrain | None:
        """The agent's model rater (made on first use), None with the heuristic brain."""
        brain = ctx.brain
        if not brain.uses_llm:
            return None
        if self._rater is None:
            ident = ctx.read("identity", Identity)
            self._rater = ImportanceBrain(
                brain,
                " ".join((f"{ident.name}.", *ident.traits)),
                max_batch=self.batch,
                remember_ratings=self.remember_ratings,
                fallback=topic_rater(ident.topics),
            )
        return self._rater

    async def _store(
        self, ctx: ModuleContext, stream: MemoryStream, items: list[PendingMemory]
    ) -> None:
        """Rate and store ``items``; with a model, those it must rate wait for a batch (a
        memory whose text the model rated before is stored at once with that rating)."""
        rater = self._importance_brain(ctx)
        if rater is not None:
            now = ctx.clock.now()
            unrated = [i for i in items if i.importance is None]
            items = [i for i in items if i.importance is not None]
            for i in unrated:  # a text rated before: rated again at once, no call
                (items if rater.knows(i.text, i.kind) else self._unrated).append(i)
            oldest = min((i.at for i in self._unrated), default=now)
            if len(self._unrated) >= self.batch or now - oldest >= self.batch_s * (
                ctx.clock.time_scale
            ):
                items += self._unrated
                self._unrated = []
        if items:
            # without a model call to wait for, no task per memory: built here in order
            ready = [self._rated_now(ctx, i, rater) for i in items]
            asked = [k for k, m in enumerate(ready) if m is None]
            if asked:
                rated = await asyncio.gather(*(self._rated(ctx, items[k]) for k in asked))
                for k, m in zip(asked, rated, strict=True):
                    ready[k] = m
            new = [m for m in ready if m is not None]
            await stream.add_many(new)
            self.stored += len(new)

    async def teardown(self, ctx: ModuleContext) -> None:
        """Memories still waiting for a batch are stored, rated by the heuristic."""
        stream, waiting, self._unrated = self.slot.stream, self._unrated, []
        if stream is None or not waiting:
            return
        new = [
            NewMemory(
                i.text, i.kind, None, i.evidence, ctx.clock.game_hours(i.at), "heuristic", i.counted
            )
            for i in waiting
        ]
        try:
            await stream.add_many(new)
            self.stored += len(new)
        except Exception:  # the store may be closing: the memories are lost, said so
            log.warning("%s: %d unrated memories not stored at stop", ctx.agent, len(new))

    async def step(self, ctx: ModuleContext) -> None:
        stream = self.slot.stream
        if stream is None:
            return
        inbox = ctx.memory
        items = []
        while inbox:
            items.append(inbox.popleft())
        await self._store(ctx, stream, items)
        wm = ctx.read("working_memory", WorkingMemory)
        recent = list(wm.items) + [
            WorkingMemoryItem(
                text=i.text, kind=i.kind, at=i.at, importance=float(i.importance or 0)
            )
            for i in items
        ]
        goal = ctx.read("goals", Goals).current
        decision = ctx.read("decision", Decision).intent
        focus = goal or decision
        retrieved = wm.retrieved
        now = ctx.clock.now()
        if focus and (
            focus != self._focus or now - self._focus_at > REFRESH_S * ctx.clock.time_scale
        ):
            hits = await stream.retrieve(
                focus,
                k=RETRIEVE_K,
                token_budget=RETRIEVE_TOKENS,
                weights=self.weights,
                decay=self.decay,
            )
            retrieved = tuple(h.record.text for h in hits)
            self._focus, self._focus_at = focus, now
        if items or retrieved != wm.retrieved:
            ctx.write(
                "working_memory",
                WorkingMemory(
                    items=tuple(recent[-WM_ITEMS:]),
                    retrieved=retrieved,
                    focus=focus,
                    memory_count=await stream.count(),
                    updated_at=now,
                ),
            )
