"""LLM-or-heuristic policies for importance and reflection, through a ``Brain``.

Each policy renders a prompt file of this package, asks the agent's
:class:`agent_runtime.llm.Brain` for a structured answer and falls back to
the deterministic heuristic of this package when no model is configured or
the call fails with an ``LLMError`` (the Brain's rule). ``label`` holds the
brain label of the last answer (``"llm:<model>"`` or ``"heuristic"``); pass
``source=lambda: policy.label`` to :class:`modules.memory.reflection.Reflector`
so reflection records say which brain produced them.

::

    brain = service.brain("memory", agent.name)
    refl = ReflectionBrain(brain, identity, HeuristicReflection(rng, agent.name))
    await Reflector(refl.ask_questions, refl.make_insights,
                    source=lambda: refl.label).maybe_reflect(stream)
    rating, label = await ImportanceBrain(brain, identity).rate(text, "observation")
    # several memories: one batched request (or concurrent ``rate`` calls, batched alike)
    pairs = await ImportanceBrain(brain, identity).rate_many([(t1, "observation"), ...])
    await stream.add(text, "observation", rating, source=label)
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from agent_runtime.config.module_options import REMEMBERED_RATINGS
from agent_runtime.interfaces import LLMRequest, Message
from modules.memory.importance import (
    ImportanceRater,
    ImportanceRating,
    ImportanceRatings,
    heuristic_importance,
    ratings_model,
    render_importance_batch_prompt,
    render_importance_prompt,
)
from modules.memory.prompting import (
    RenderedPrompt,
    numbered_distinct_memories,
    numbered_memories,
    quote_untrusted,
    render_agent_prompt,
)
from modules.memory.records import MemoryKind, MemoryRecord
from modules.memory.reflection import (
    AllInsights,
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
    "render_all_insights_prompt",
    "render_insights_prompt",
    "render_questions_prompt",
]

log = logging.getLogger(__name__)


T = TypeVar("T", bound=BaseModel)


def _request(
    brain: Brain, prompt: RenderedPrompt, model: type[T], temperature: float, max_tokens: int
) -> LLMRequest[T]:
    """The structured request for a rendered memory prompt, answered as ``model``."""
    return LLMRequest(
        module=brain.module,
        agent=brain.agent,
        messages=(Message("system", prompt.system), Message("user", prompt.user)),
        response_model=model,
        temperature=temperature,
        max_tokens=max_tokens,
        prompt_name=f"memory.{prompt.name}",
    )


def render_questions_prompt(
    agent: str, identity: str, records: Sequence[MemoryRecord], n: int = 3
) -> RenderedPrompt:
    """The prompt asking for the ``n`` most salient questions about ``records``."""
    return render_agent_prompt(
        "reflection_questions", agent, identity, n=n, memories=numbered_distinct_memories(records)
    )


def render_insights_prompt(
    agent: str, identity: str, question: str, records: Sequence[MemoryRecord], max_insights: int
) -> RenderedPrompt:
    """The prompt asking for insights on ``question`` citing numbered ``records``."""
    return render_agent_prompt(
        "reflection_insights",
        agent,
        identity,
        question=quote_untrusted(question),
        max_insights=max_insights,
        memories=numbered_memories(records),
    )


def render_all_insights_prompt(
    agent: str,
    identity: str,
    questions: Sequence[str],
    records: Sequence[MemoryRecord],
    max_insights: int,
) -> RenderedPrompt:
    """The prompt asking for insights on every question at once, citing numbered
    ``records`` (answer: :class:`~modules.memory.reflection.AllInsights`)."""
    return render_agent_prompt(
        "reflection_insights_all",
        agent,
        identity,
        n=len(questions),
        questions="\n".join(f"{i}. {quote_untrusted(q)}" for i, q in enumerate(questions, 1)),
        max_insights=max_insights,
        memories=numbered_memories(records),
    )


@dataclass(eq=False)
class ImportanceBrain:
    """Importance 1..10 by the LLM, or by :func:`heuristic_importance` as fallback.

    Ratings asked for together (``rate_many``, or several ``rate`` calls started
    in the same event-loop turn, e.g. by ``asyncio.gather``) go to the model as
    ONE low-priority request for up to ``max_batch`` memories. When the model's
    queue is behind, the LLM layer sheds that request and every memory in it is
    rated by the heuristic at once (label ``"heuristic"``).
    """

    brain: Brain
    identity: str = ""
    _: KW_ONLY
    temperature: float = 0.0
    max_batch: int = 8
    #: the heuristic that rates a memory the model does not (the agent's topics with it)
    fallback: ImportanceRater = heuristic_importance
    #: the model's ratings kept for a memory of the same kind and text (0: none kept, every
    #: memory is asked for): see :meth:`known`
    remember_ratings: int = REMEMBERED_RATINGS
    label: str = field(default="heuristic", init=False)
    batches: int = field(default=0, init=False)  # LLM requests made (or shed) for ratings
    reused: int = field(default=0, init=False)  # ratings given again without asking
    _pending: list[tuple[str, MemoryKind, asyncio.Future[tuple[int, str]]]] = field(
        default_factory=list, init=False
    )
    _rated: OrderedDict[tuple[MemoryKind, str], tuple[int, str]] = field(
        default_factory=OrderedDict, init=False
    )

    def __post_init__(self) -> None:
        if self.max_batch < 1:
            raise ValueError("max_batch must be >= 1")
        if self.remember_ratings < 0:
            raise ValueError("remember_ratings must be >= 0")

    def known(self, text: str, kind: MemoryKind) -> tuple[int, str] | None:
        """The model's rating of a memory of this kind and text it rated before, if kept.

        The same words of the same agent ask the same question (the prompt holds only the
        agent's identity and the memories): over half the memories a model rates repeat a
        text the same agent's rater rated before ("I tried to collect(block=stone, count=4): collect succeeded (+4
        cobblestone).", again and again), and every one got the same rating again. A rating
        that fell back to the heuristic is not kept: the model is asked next time."""
        got = self._rated.get((kind, text))
        if got is not None:
            self._rated.move_to_end((kind, text))
            self.reused += 1
        return got

    def knows(self, text: str, kind: MemoryKind) -> bool:
        """A rating of this memory is kept (:meth:`known` would answer without a call)."""
        return (kind, text) in self._rated

    def _keep(self, text: str, kind: MemoryKind, rated: tuple[int, str]) -> None:
        if self.remember_ratings <= 0 or rated[1] == "heuristic":
            return
        self._rated[(kind, text)] = rated
        self._rated.move_to_end((kind, text))
        while len(self._rated) > self.remember_ratings:
            self._rated.popitem(last=False)

    async def rate(self, text: str, kind: MemoryKind) -> tuple[int, str]:
        """``(rating, brain label)`` for one memory (batched with concurrent calls; a text
        rated before, or twice in one batch, is asked for once)."""
        if not self.brain.uses_llm:
            return self.fallback(text, kind), "heuristic"
        if (got := self.known(text, kind)) is not None:
            return got
        future: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        self._pending.append((text, kind, future))
        if len(self._pending) == 1:
            # the first caller of this turn leads: let the others of the turn join, then ask
            await asyncio.sleep(0)
            batch, self._pending = self._pending, []
            try:
                unique = list(dict.fromkeys((t, k) for t, k, _ in batch))
                answers: dict[tuple[str, MemoryKind], tuple[int, str]] = {}
                for start in range(0, len(unique), self.max_batch):
                    chunk = unique[start : start + self.max_batch]
                    for item, r in zip(chunk, await self._ask(chunk), strict=True):
                        answers[item] = r
                        self._keep(*item, r)
                for t, k, f in batch:
                    if not f.done() and (t, k) in answers:
                        f.set_result(answers[(t, k)])
            finally:
                for t, k, f in batch:  # cancelled half-way: the rest get the heuristic
                    if not f.done():
                        f.set_result((self.fallback(t, k), "heuristic"))
        return await future

    async def rate_many(self, items: Sequence[tuple[str, MemoryKind]]) -> list[tuple[int, str]]:
        """``(rating, label)`` for each ``(text, kind)``, in batches of ``max_batch``."""
        return list(await asyncio.gather(*(self.rate(t, k) for t, k in items)))

    async def _ask(self, items: list[tuple[str, MemoryKind]]) -> list[tuple[int, str]]:
        self.batches += 1
        if len(items) == 1:
            text, kind = items[0]
            one = await self.brain.think(
                lambda: self._single_request(text, kind),
                lambda: ImportanceRating(rating=self.fallback(text, kind)),
            )
            self.label = one.brain
            return [(one.value.rating, one.brain)]
        model = ratings_model(len(items))

        def request() -> LLMRequest[ImportanceRatings]:
            prompt = render_importance_batch_prompt(items, self.brain.agent, self.identity)
            return _request(self.brain, prompt, model, self.temperature, 12 + 4 * len(items))

        thought = await self.brain.think(
            request,
            lambda: model(ratings=[self.fallback(t, k) for t, k in items]),
        )
        self.label = thought.brain
        return [(r, thought.brain) for r in thought.value.ratings]

    def _single_request(self, text: str, kind: MemoryKind) -> LLMRequest[ImportanceRating]:
        prompt = render_importance_prompt(text, kind, self.brain.agent, self.identity)
        return _request(self.brain, prompt, ImportanceRating, self.temperature, 20)

    async def __call__(self, text: str, kind: MemoryKind) -> int:
        """An :data:`~modules.memory.importance.AsyncImportanceRater`."""
        rating, _ = await self.rate(text, kind)
        return rating


@dataclass(eq=False)
class ReflectionBrain:
    """``ask_questions`` / ``make_insights`` for :class:`~modules.memory.reflection.Reflector`."""

    brain: Brain
    identity: str
    heuristic: HeuristicReflection
    temperature: float = field(default=0.7, kw_only=True)
    label: str = field(default="heuristic", init=False)

    async def _think(
        self,
        prompt: Callable[[], RenderedPrompt],
        model: type[T],
        max_tokens: int,
        fallback: Callable[[], Awaitable[T]],
    ) -> T:
        """``model`` from the brain for ``prompt()`` (rendered only if a model will read it),
        else from ``fallback``; remembers the brain's label."""
        thought = await self.brain.think(
            lambda: _request(self.brain, prompt(), model, self.temperature, max_tokens), fallback
        )
        self.label = thought.brain
        return thought.value

    async def ask_questions(self, records: Sequence[MemoryRecord], n: int) -> list[str]:
        if n != 3:
            raise ValueError("the reflection_questions prompt and model ask for exactly 3")

        async def fallback() -> ReflectionQuestions:
            return ReflectionQuestions(questions=await self.heuristic.ask_questions(records, n))

        def prompt() -> RenderedPrompt:
            return render_questions_prompt(self.brain.agent, self.identity, records, n)

        return list((await self._think(prompt, ReflectionQuestions, 300, fallback)).questions)

    async def make_insights(
        self, question: str, records: Sequence[MemoryRecord], max_insights: int
    ) -> list[Insight]:
        async def fallback() -> Insights:
            return Insights(
                insights=await self.heuristic.make_insights(question, records, max_insights)
            )

        def prompt() -> RenderedPrompt:
            return render_insights_prompt(
                self.brain.agent, self.identity, question, records, max_insights
            )

        return list((await self._think(prompt, Insights, 600, fallback)).insights)

    async def make_all_insights(
        self, questions: Sequence[str], records: Sequence[MemoryRecord], max_insights: int
    ) -> list[list[Insight]]:
        """The insights on every question in one call (a
        :data:`~modules.memory.reflection.MakeAllInsights`)."""

        async def fallback() -> AllInsights:
            return AllInsights(
                answers=[
                    await self.heuristic.make_insights(q, records, max_insights) for q in questions
                ]
            )

        def prompt() -> RenderedPrompt:
            return render_all_insights_prompt(
                self.brain.agent, self.identity, questions, records, max_insights
            )

        budget = 200 + 120 * max_insights * len(questions)  # ~100 tokens an insight at most
        return list((await self._think(prompt, AllInsights, budget, fallback)).answers)
