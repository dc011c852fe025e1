"""Reflection: turning many recent memories into a few higher-level insights.

Pipeline (Generative Agents, section 4.2):

1. trigger: the importance summed since the last reflection is **greater
   than** ``threshold`` (paper: 150; :func:`should_reflect`);
2. take the perceived records that added to the trigger since the last reflection
   (as Generative Agents' implementation does: its ``importance_ele_n`` latest nodes),
   at most ``n_recent`` (100); the ``n_recent`` latest records when that count is not
   known (a reloaded stream);
3. ``ask_questions(records, 3)`` -> the 3 most salient high-level questions;
4. for each question, retrieve from the whole stream (reflections included,
   retrieval refreshes last-access as usual);
5. ``make_insights(question, retrieved, max)`` -> insights, each citing the
   **1-based** numbers of the retrieved records it rests on; or, given
   ``make_all_insights``, ONE call for every question over the union of their
   retrieved records (within one ``token_budget``), each question answered with its
   own insights (two model calls a reflection instead of four);
6. store every insight as a ``reflection`` record whose ``evidence`` holds the
   cited record ids (reflection trees); insights citing nothing valid are
   dropped, exact repeats of existing reflections are skipped;
7. subtract the importance consumed from the counter (importance that arrived
   while reflecting still counts towards the next reflection).

The two policies are plain async callables, so the LLM brain
(:mod:`modules.memory.llm_policies`) and the deterministic
:class:`HeuristicReflection` plug in the same way.
"""

from __future__ import annotations

import logging
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from modules.memory.importance import AsyncImportanceRater
from modules.memory.records import MemoryKind, MemoryRecord, NewMemory
from modules.memory.retrieval import DEFAULT_DECAY, DEFAULT_WEIGHTS
from modules.memory.store import MemoryStream

__all__ = [
    "AllInsights",
    "AskQuestions",
    "HeuristicReflection",
    "Insight",
    "Insights",
    "MakeAllInsights",
    "MakeInsights",
    "ReflectionConfig",
    "ReflectionQuestions",
    "ReflectionResult",
    "Reflector",
    "should_reflect",
]

log = logging.getLogger(__name__)


# --- structured outputs of the LLM prompts ---------------------------------------


class ReflectionQuestions(BaseModel):
    """Answer of ``prompts/reflection_questions.md``."""

    model_config = ConfigDict(extra="ignore")

    questions: list[str] = Field(min_length=3, max_length=3)


class Insight(BaseModel):
    """One insight; ``evidence`` are 1-based numbers of the memories listed in the prompt."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1)
    evidence: list[int] = Field(default_factory=list)


class Insights(BaseModel):
    """Answer of ``prompts/reflection_insights.md``."""

    model_config = ConfigDict(extra="ignore")

    insights: list[Insight] = Field(default_factory=list)


class AllInsights(BaseModel):
    """Answer of ``prompts/reflection_insights_all.md``: one list of insights per
    question, in the questions' order."""

    model_config = ConfigDict(extra="ignore")

    answers: list[list[Insight]] = Field(default_factory=list)


#: ``(recent records oldest first, n) -> n questions``
AskQuestions = Callable[[Sequence[MemoryRecord], int], Awaitable[list[str]]]
#: ``(question, numbered records, max insights) -> insights citing 1-based numbers``
MakeInsights = Callable[[str, Sequence[MemoryRecord], int], Awaitable[list[Insight]]]
#: ``(questions, numbered records, max insights a question) -> one list of insights per
#: question, in order, citing 1-based numbers of the shared list``
MakeAllInsights = Callable[
    [Sequence[str], Sequence[MemoryRecord], int], Awaitable[list[list[Insight]]]
]


@dataclass(frozen=True, slots=True)
class ReflectionConfig:
    threshold: float = 150.0
    n_recent: int = 100
    n_questions: int = 3
    k_per_question: int = 30
    token_budget: int | None = 3000
    insights_per_question: int = 5
    weights: tuple[float, float, float] = DEFAULT_WEIGHTS
    decay: float = DEFAULT_DECAY


@dataclass(slots=True)
class ReflectionResult:
    questions: list[str]
    reflections: list[MemoryRecord]
    consumed: float
    dropped: int = 0
    duplicates: int = 0
    retrieved: dict[str, list[int]] = field(default_factory=dict)


def should_reflect(importance_since: float, threshold: float = 150.0) -> bool:
    """True when the summed importance is strictly greater than ``threshold``."""
    return importance_since > threshold


def _stream_rate(stream: MemoryStream) -> AsyncImportanceRater:
    """The stream's own heuristic rater (the agent's village topics with it), awaited."""

    async def rate(text: str, kind: MemoryKind) -> int:
        return stream.rater(text, kind)

    return rate


def _norm_text(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass(frozen=True)
class Reflector:
    """How an agent reflects: its policy's calls (steps 3 and 5 above), the config, the rater
    of the new records (default: the stream's own heuristic) and ``source``, their label.

    ``source``: a callable is read after each insights call (e.g. ``lambda: policy.label``
    for a Brain policy that may fall back to the heuristic on some calls).
    ``make_all_insights``: the insights for every question in one call (used instead of
    ``make_insights``).
    """

    ask_questions: AskQuestions
    make_insights: MakeInsights
    _: KW_ONLY
    config: ReflectionConfig = field(default_factory=ReflectionConfig)
    rate: AsyncImportanceRater | None = None
    source: str | Callable[[], str] = "heuristic"
    make_all_insights: MakeAllInsights | None = None

    def _label(self) -> str:
        return self.source() if callable(self.source) else self.source

    async def maybe_reflect(
        self, stream: MemoryStream, now: float | None = None
    ) -> ReflectionResult | None:
        """Reflect if the trigger fires and no reflection of this agent is running; else None."""
        if stream.reflection_lock.locked():
            return None
        async with stream.reflection_lock:
            if not should_reflect(
                await stream.importance_since_reflection(), self.config.threshold
            ):
                return None
            return await self.reflect(stream, now)

    async def reflect(self, stream: MemoryStream, now: float | None = None) -> ReflectionResult:
        """Run one reflection now, whatever the counter says (the caller holds the decision)."""
        cfg = self.config
        rate = self.rate or _stream_rate(stream)
        now = stream.clock() if now is None else float(now)
        consumed = await stream.importance_since_reflection()
        counted = stream.counted_since_reflection
        if counted:
            recent = await stream.recent(min(cfg.n_recent, counted), stream.counted_kinds)
        else:
            recent = await stream.recent(cfg.n_recent)
        if not recent:
            await stream.mark_reflected(consumed, now)
            return ReflectionResult([], [], consumed)
        raw_questions = await self.ask_questions(recent, cfg.n_questions)
        questions = [q.strip() for q in raw_questions if q and q.strip()][: cfg.n_questions]
        existing = {_norm_text(r.text) for r in stream.all_records() if r.kind == "reflection"}
        seen: set[str] = set()
        pending: list[tuple[str, tuple[int, ...], str]] = []
        result = ReflectionResult(questions, [], consumed)
        answered: list[tuple[list[Insight], Sequence[MemoryRecord], str]] = []
        if self.make_all_insights is None:
            for question in questions:
                shown = await _retrieved(stream, question, cfg, now, cfg.token_budget)
                result.retrieved[question] = [r.id for r in shown]
                if not shown:
                    continue
                insights = await self.make_insights(question, shown, cfg.insights_per_question)
                answered.append((insights, shown, self._label()))
        elif questions:
            # one list for every question: each question's share of the budget, then the union
            share = None if cfg.token_budget is None else cfg.token_budget // len(questions)
            union: dict[int, MemoryRecord] = {}
            for question in questions:
                got = await _retrieved(stream, question, cfg, now, share)
                result.retrieved[question] = [r.id for r in got]
                union.update((r.id, r) for r in got)
            shown = sorted(union.values(), key=lambda r: (r.created, r.id))
            if shown:
                per_question = await self.make_all_insights(
                    questions, shown, cfg.insights_per_question
                )
                label = self._label()
                answered += [(list(ins), shown, label) for ins in per_question[: len(questions)]]
        for insights, listed, label in answered:
            for ins in insights[: cfg.insights_per_question]:
                text = ins.text.strip()
                cited = [listed[i - 1].id for i in ins.evidence if 1 <= i <= len(listed)]
                ids = tuple(dict.fromkeys(cited))
                if not text or not ids:
                    result.dropped += 1
                    log.info("%s: dropped insight without valid evidence: %r", stream.agent, text)
                    continue
                key = _norm_text(text)
                if key in existing or key in seen:
                    result.duplicates += 1
                    continue
                seen.add(key)
                pending.append((text, ids, label))
        items = [
            NewMemory(text, "reflection", await rate(text, "reflection"), ids, now, label)
            for text, ids, label in pending
        ]
        result.reflections = await stream.add_many(items)
        await stream.mark_reflected(consumed, now)
        log.info(
            "%s reflected: %d questions, %d insights (%d dropped, %d repeats), consumed %.0f",
            stream.agent,
            len(questions),
            len(result.reflections),
            result.dropped,
            result.duplicates,
            consumed,
        )
        return result


async def _retrieved(
    stream: MemoryStream,
    question: str,
    cfg: ReflectionConfig,
    now: float,
    token_budget: int | None,
) -> list[MemoryRecord]:
    """The records retrieved for ``question``, oldest first."""
    hits = await stream.retrieve(
        question,
        k=cfg.k_per_question,
        token_budget=token_budget,
        now=now,
        weights=cfg.weights,
        decay=cfg.decay,
    )
    return sorted((h.record for h in hits), key=lambda r: (r.created, r.id))


# --- heuristic policies ------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'_-]+")
_STOP = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not now of off on once only
    or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until
    up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves said says say saw see sees seen told tell asks asked went go
    goes going got get gets getting one two three still near nearby around back very really
    something thing things there's i'm it's don't didn't can't let's
    """.split()  # noqa: SIM905
)


def _topics(text: str, exclude: frozenset[str]) -> dict[str, bool]:
    """Content words of ``text``, lower-cased, each mapped to "was written lower-case here"."""
    out: dict[str, bool] = {}
    for tok in _TOKEN.findall(text):
        low = tok.lower().strip("'_-")
        if len(low) < 3 or low in _STOP or low in exclude:
            continue
        out[low] = out.get(low, False) or tok[0].islower()
    return out


class HeuristicReflection:
    """Deterministic question and insight policies (given the seeded ``rng``).

    Questions come from the topics (content words and names) that carry the
    most importance across the recent records; insights name a topic shared
    by at least ``min_support`` of the shown records and cite exactly those
    records (at most ``max_evidence``, most important first).
    """

    label = "heuristic"

    def __init__(
        self,
        rng: random.Random,
        agent: str = "",
        *,
        min_support: int = 2,
        max_evidence: int = 5,
        max_insights: int = 2,
    ) -> None:
        self.rng = rng
        self.exclude = frozenset({agent.lower()} if agent else ())
        self.min_support = min_support
        self.max_evidence = max_evidence
        self.max_insights = max_insights

    def _ranked_topics(self, records: Sequence[MemoryRecord]) -> list[tuple[str, list[int]]]:
        """Topics by summed importance; a word never written lower-case is shown capitalised."""
        weight: Counter[str] = Counter()
        support: dict[str, list[int]] = {}
        common: set[str] = set()
        display: dict[str, str] = {}
        for idx, r in enumerate(records, start=1):
            for t, lower_here in _topics(r.text, self.exclude).items():
                weight[t] += r.importance
                support.setdefault(t, []).append(idx)
                if lower_here:
                    common.add(t)
        for t in weight:
            display[t] = t if t in common else t[:1].upper() + t[1:]
        names = sorted(weight)
        jitter = {t: self.rng.random() for t in names}  # seeded tie-break, order-independent
        names.sort(key=lambda t: (-weight[t], -len(support[t]), jitter[t]))
        return [(display[t], support[t]) for t in names]

    async def ask_questions(self, records: Sequence[MemoryRecord], n: int) -> list[str]:
        questions: list[str] = []
        for topic, _ in self._ranked_topics(records)[:n]:
            if topic[0].isupper():
                questions.append(f"What do I know about {topic} and how do I feel about them?")
            else:
                questions.append(f"What have I learned about {topic}?")
        while len(questions) < n:
            questions.append("What matters most to me right now?")
        return questions

    async def make_insights(
        self, question: str, records: Sequence[MemoryRecord], max_insights: int
    ) -> list[Insight]:
        asked = set(_topics(question, self.exclude))
        ranked = [(t, s) for t, s in self._ranked_topics(records) if len(s) >= self.min_support]
        ranked.sort(key=lambda ts: 0 if ts[0].lower() in asked else 1)  # stable: asked first
        out: list[Insight] = []
        for topic, support in ranked[: min(max_insights, self.max_insights)]:
            best = sorted(support, key=lambda i: (-records[i - 1].importance, -i))
            evidence = sorted(best[: self.max_evidence])
            top = records[best[0] - 1].text
            if len(top) > 120:
                top = top[:119] + "…"
            out.append(
                Insight(
                    text=(
                        f"{topic} keeps coming up for me ({len(support)} memories); "
                        f"the most important: {top}"
                    ),
                    evidence=evidence,
                )
            )
        return out
