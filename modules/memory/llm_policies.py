"""LLM-or-heuristic policies for importance and reflection, through a ``Brain``.

Each policy renders a prompt file of this package, asks the agent's
:class:`agent_runtime.llm.Brain` for a structured answer and falls back to
the deterministic heuristic of this package when no model is configured or
the call fails with an ``LLMError`` (the Brain's rule). ``label`` holds the
brain label of the last answer (``"llm:<model>"`` or ``"heuristic"``); pass
``source=lambda: policy.label`` to :func:`modules.memory.reflection.reflect`
so reflection records say which brain produced them.

::

    brain = service.brain("memory", agent.name)
    refl = ReflectionBrain(brain, identity, HeuristicReflection(rng, agent.name))
    await maybe_reflect(stream, refl.ask_questions, refl.make_insights,
                        source=lambda: refl.label)
    rating, label = await ImportanceBrain(brain, identity).rate(text, "observation")
    await stream.add(text, "observation", rating, source=label)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_runtime.interfaces import LLMRequest, Message
from modules.memory.importance import (
    ImportanceRating,
    heuristic_importance,
    render_importance_prompt,
)
from modules.memory.prompting import RenderedPrompt, numbered_memories, quote_untrusted
from modules.memory.prompting import render_prompt as _render
from modules.memory.records import MemoryKind, MemoryRecord
from modules.memory.reflection import (
    HeuristicReflection,
    Insight,
    Insights,
    ReflectionQuestions,
)

if TYPE_CHECKING:
    from agent_runtime.llm.brain import Brain

__all__ = [
    "ImportanceBrain",
    "ReflectionBrain",
    "render_insights_prompt",
    "render_questions_prompt",
]

log = logging.getLogger(__name__)


def _messages(p: RenderedPrompt) -> tuple[Message, ...]:
    return (Message("system", p.system), Message("user", p.user))


def render_questions_prompt(
    agent: str, identity: str, records: Sequence[MemoryRecord], n: int = 3
) -> RenderedPrompt:
    """The prompt asking for the ``n`` most salient questions about ``records``."""
    return _render(
        "reflection_questions",
        agent=agent,
        identity=identity.strip() or "(no description)",
        n=n,
        memories=numbered_memories(records),
    )


def render_insights_prompt(
    agent: str, identity: str, question: str, records: Sequence[MemoryRecord], max_insights: int
) -> RenderedPrompt:
    """The prompt asking for insights on ``question`` citing numbered ``records``."""
    return _render(
        "reflection_insights",
        agent=agent,
        identity=identity.strip() or "(no description)",
        question=quote_untrusted(question),
        max_insights=max_insights,
        memories=numbered_memories(records),
    )


class ImportanceBrain:
    """Importance 1..10 by the LLM, or by :func:`heuristic_importance` as fallback."""

    def __init__(self, brain: Brain, identity: str = "", *, temperature: float = 0.0) -> None:
        self.brain = brain
        self.identity = identity
        self.temperature = temperature
        self.label = "heuristic"

    async def rate(self, text: str, kind: MemoryKind) -> tuple[int, str]:
        """``(rating, brain label)`` for one memory."""

        def request() -> LLMRequest[ImportanceRating]:
            prompt = render_importance_prompt(text, kind, self.brain.agent, self.identity)
            return LLMRequest(
                module=self.brain.module,
                agent=self.brain.agent,
                messages=_messages(prompt),
                response_model=ImportanceRating,
                temperature=self.temperature,
                max_tokens=20,
                prompt_name=f"memory.{prompt.name}",
            )

        thought = await self.brain.think(
            request, lambda: ImportanceRating(rating=heuristic_importance(text, kind))
        )
        self.label = thought.brain
        return thought.value.rating, thought.brain

    async def __call__(self, text: str, kind: MemoryKind) -> int:
        """An :data:`~modules.memory.importance.AsyncImportanceRater`."""
        rating, _ = await self.rate(text, kind)
        return rating


class ReflectionBrain:
    """``ask_questions`` / ``make_insights`` for :func:`~modules.memory.reflection.reflect`."""

    def __init__(
        self,
        brain: Brain,
        identity: str,
        heuristic: HeuristicReflection,
        *,
        temperature: float = 0.7,
    ) -> None:
        self.brain = brain
        self.identity = identity
        self.heuristic = heuristic
        self.temperature = temperature
        self.label = "heuristic"

    async def ask_questions(self, records: Sequence[MemoryRecord], n: int) -> list[str]:
        if n != 3:
            raise ValueError("the reflection_questions prompt and model ask for exactly 3")

        def request() -> LLMRequest[ReflectionQuestions]:
            prompt = render_questions_prompt(self.brain.agent, self.identity, records, n)
            return LLMRequest(
                module=self.brain.module,
                agent=self.brain.agent,
                messages=_messages(prompt),
                response_model=ReflectionQuestions,
                temperature=self.temperature,
                max_tokens=300,
                prompt_name=f"memory.{prompt.name}",
            )

        async def fallback() -> ReflectionQuestions:
            return ReflectionQuestions(questions=await self.heuristic.ask_questions(records, n))

        thought = await self.brain.think(request, fallback)
        self.label = thought.brain
        return list(thought.value.questions)

    async def make_insights(
        self, question: str, records: Sequence[MemoryRecord], max_insights: int
    ) -> list[Insight]:
        def request() -> LLMRequest[Insights]:
            prompt = render_insights_prompt(
                self.brain.agent, self.identity, question, records, max_insights
            )
            return LLMRequest(
                module=self.brain.module,
                agent=self.brain.agent,
                messages=_messages(prompt),
                response_model=Insights,
                temperature=self.temperature,
                max_tokens=600,
                prompt_name=f"memory.{prompt.name}",
            )

        async def fallback() -> Insights:
            return Insights(
                insights=await self.heuristic.make_insights(question, records, max_insights)
            )

        thought = await self.brain.think(request, fallback)
        self.label = thought.brain
        return list(thought.value.insights)
