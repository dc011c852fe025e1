"""The reflection module: when the importance summed since the last reflection passes the
threshold (paper: 150), turn recent memories into insights with evidence links.

The pipeline itself lives in :mod:`modules.memory.reflection`; this module
checks the trigger on its cadence, plugs in the LLM or heuristic policies, and
publishes the result in the ``reflection`` section and ``events.jsonl``.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from agent_runtime.config.module_options import ReflectionOptions
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Identity, Reflection
from modules.memory.llm_policies import ReflectionBrain
from modules.memory.reflection import HeuristicReflection, ReflectionConfig, Reflector
from modules.memory_module import StreamSlot

INSIGHTS_KEPT = 12


class ReflectionModule(Module):
    name: ClassVar[str] = "reflection"
    reads: ClassVar[frozenset[str]] = frozenset({"reflection", "identity"})
    writes: ClassVar[frozenset[str]] = frozenset({"reflection"})

    def __init__(
        self,
        schedule: Any,
        options: ReflectionOptions | None = None,
        slot: StreamSlot | None = None,
    ) -> None:
        super().__init__(schedule)
        self.slot = slot or StreamSlot()  # the agent's memory stream, opened by memory
        self.config = ReflectionConfig(threshold=(options or ReflectionOptions()).threshold)

    async def step(self, ctx: ModuleContext) -> None:
        stream = self.slot.stream
        if stream is None:
            return
        policy = self._policy(ctx)
        result = await Reflector(
            policy.ask_questions,
            policy.make_insights,
            config=self.config,
            source=lambda: str(policy.label),
            # a model: the insights for all questions in one call (the heuristic per question)
            make_all_insights=(
                policy.make_all_insights if isinstance(policy, ReflectionBrain) else None
            ),
        ).maybe_reflect(stream)
        state = ctx.read("reflection", Reflection)
        since = await stream.importance_since_reflection()
        if result is None:
            if abs(since - state.importance_since) >= 1:
                ctx.write(
                    "reflection",
                    state.model_copy(
                        update={"importance_since": since, "updated_at": ctx.clock.now()}
                    ),
                )
            return
        texts = [r.text for r in result.reflections]
        ctx.write(
            "reflection",
            Reflection(
                insights=(*state.insights, *texts)[-INSIGHTS_KEPT:],
                importance_since=since,
                reflections=state.reflections + 1,
                last_at=ctx.clock.now(),
                updated_at=ctx.clock.now(),
            ),
        )
        ctx.emit(
            "reflection",
            questions=result.questions,
            brain=str(policy.label),
            insights=[
                {"id": r.id, "text": r.text, "evidence": list(r.evidence), "source": r.source}
                for r in result.reflections
            ],
        )

    def _policy(self, ctx: ModuleContext) -> HeuristicReflection | ReflectionBrain:
        heuristic = HeuristicReflection(random.Random(ctx.rng.getrandbits(32)), ctx.agent)
        brain = ctx.brain
        if not brain.uses_llm:
            return heuristic
        ident = ctx.read("identity", Identity)
        identity = " ".join((f"{ident.name}.", *ident.traits))
        return ReflectionBrain(brain, identity, heuristic)
