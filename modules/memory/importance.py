"""Importance (poignancy) of a memory, 1 = mundane .. 10 = life-changing.

Two raters share one scale:

* :func:`heuristic_importance` — deterministic, instantaneous: a base value
  per record kind, raised by the strongest keyword class found in the text
  (deaths, violence, votes and laws, rare items, gifts and trades,
  relationships, belief ...) and pulled down to 2 for routine movement or
  idling when nothing notable is mentioned. Two or more distinct notable
  classes (>= 6) add one point. The village's topics (an experiment's words,
  in the agent's Identity: ``Topic.memorable`` at ``Topic.importance``) are
  classes too: the modules know no experiment's words.
* the LLM rater: prompt ``prompts/importance.md`` rendered by
  :func:`render_importance_prompt`, answer parsed into
  :class:`ImportanceRating`; or, for several memories in one call,
  ``prompts/importance_batch.md`` (:func:`render_importance_batch_prompt`)
  answered as :func:`ratings_model` ``(n)`` (see :mod:`modules.memory.llm_policies`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, create_model

from agent_runtime.config.topics import Topic
from modules.memory.prompting import (
    FENCE_CLOSE,
    FENCE_OPEN,
    RenderedPrompt,
    quote_untrusted,
    render_agent_prompt,
)
from modules.memory.records import MemoryKind

__all__ = [
    "KIND_BASE",
    "AsyncImportanceRater",
    "ImportanceRater",
    "ImportanceRating",
    "ImportanceRatings",
    "heuristic_importance",
    "ratings_model",
    "render_importance_batch_prompt",
    "render_importance_prompt",
    "topic_rater",
]

ImportanceRater = Callable[[str, MemoryKind], int]
AsyncImportanceRater = Callable[[str, MemoryKind], Awaitable[int]]


class ImportanceRating(BaseModel):
    """Structured answer of the importance prompt."""

    model_config = ConfigDict(extra="ignore")

    rating: int = Field(ge=1, le=10, description="1 = mundane, 10 = extremely poignant")


Rating = Annotated[int, Field(ge=1, le=10)]


class ImportanceRatings(BaseModel):
    """Structured answer of the batch prompt: one rating per memory, in order."""

    model_config = ConfigDict(extra="ignore")

    ratings: list[Rating]


@functools.cache
def ratings_model(n: int) -> type[ImportanceRatings]:
    """:class:`ImportanceRatings` whose list must hold exactly ``n`` ratings (a schema
    that a constrained decoder enforces, and a check on the reply)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    return create_model(
        f"ImportanceRatings{n}",
        __base__=ImportanceRatings,
        ratings=(list[Rating], Field(min_length=n, max_length=n)),
    )


#: Starting value per kind before keywords are considered.
KIND_BASE: dict[MemoryKind, int] = {
    "observation": 2,
    "action": 3,
    "conversation": 3,
    "plan": 4,
    "reflection": 5,
    "seed": 5,
}


def _words(*stems: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(stems) + r")\b", re.IGNORECASE)


#: (value, class name, pattern), strongest first.
_RULES: tuple[tuple[int, str, re.Pattern[str]], ...] = (
    (
        9,
        "death",
        _words(
            r"died",
            r"dies",
            r"dying",
            r"death",
            r"dead",
            r"killed",
            r"slain",
            r"murder(?:ed)?",
            r"drowned",
            r"respawn(?:ed)?",
        ),
    ),
    (
        8,
        "betrayal",
        _words(
            r"betray(?:ed|al)?", r"banish(?:ed)?", r"exiled?", r"destroyed", r"burn(?:ed|t) down"
        ),
    ),
    (
        7,
        "violence",
        _words(
            r"attack(?:ed|ing|s)?",
            r"fight(?:ing)?",
            r"fought",
            r"hurt",
            r"threat(?:en(?:ed|s)?)?",
            r"conflict",
            r"argu(?:e|ed|ment)",
            r"st(?:ole|eal|olen)",
            r"theft",
            r"angry",
            r"hat(?:e|ed|es)",
        ),
    ),
    (
        7,
        "governance",
        _words(
            r"vot(?:e|ed|es|ing)",
            r"amendments?",
            r"elect(?:ed|ion)",
            r"constitution",
            r"laws?",
            r"mayor",
        ),
    ),
    (
        7,
        "rare item",
        _words(
            r"diamonds?",
            r"emeralds?",
            r"netherite",
            r"enchant(?:ed|ing)?",
            r"totem",
            r"elytra",
            r"beacon",
        ),
    ),
    (
        6,
        "exchange",
        _words(
            r"gifts?",
            r"gave",
            r"give[sn]?",
            r"received",
            r"trad(?:e|ed|es)",
            r"donat(?:e|ed)",
            r"shared",
            r"helped",
            r"thank(?:s|ed)?",
        ),
    ),
    (
        6,
        "relationship",
        _words(
            r"lov(?:e|ed|es)",
            r"friends?(?:hip)?",
            r"married",
            r"promis(?:e|ed)",
            r"trust(?:ed)?",
            r"secret",
            r"apologi[sz]ed?",
        ),
    ),
    (
        6,
        "belief",
        _words(
            r"convert(?:ed)?",
            r"pray(?:ed)?",
            r"priest",
            r"faith",
        ),
    ),
    (
        5,
        "danger",
        _words(
            r"creepers?",
            r"zombies?",
            r"skeletons?",
            r"spiders?",
            r"lava",
            r"hungry",
            r"starving",
            r"low health",
            r"night",
        ),
    ),
    (5, "resource", _words(r"iron", r"gold", r"obsidian", r"nether", r"caves?")),
    (
        4,
        "progress",
        _words(
            r"built", r"crafted", r"smelted", r"mined", r"discovered", r"found", r"first", r"new"
        ),
    ),
)

_MUNDANE = _words(
    r"walk(?:ed|ing|s)?",
    r"idle",
    r"idling",
    r"wait(?:ed|ing|s)?",
    r"moved?",
    r"looked",
    r"stood",
    r"standing",
    r"nothing",
    r"wander(?:ed|ing)?",
)


@functools.lru_cache(maxsize=64)
def _topic_rule(topic: Topic) -> tuple[int, str, re.Pattern[str]] | None:
    """A topic as one more class of the rules (None: it names no memorable word)."""
    if not topic.memorable:
        return None
    return (topic.importance, f"topic {topic.name}", _words(*map(re.escape, topic.memorable)))


def heuristic_importance(text: str, kind: MemoryKind, topics: Sequence[Topic] = ()) -> int:
    """Deterministic 1..10 importance of ``text`` for a record of ``kind``; ``topics``: the
    agent's village topics (its Identity), each one more class."""
    base = KIND_BASE[kind]
    rules = [*_RULES, *(r for r in map(_topic_rule, topics) if r is not None)]
    hits = [(value, name) for value, name, pattern in rules if pattern.search(text)]
    if not hits:
        if _MUNDANE.search(text):
            return max(1, min(base, 2))
        return base
    best = max(value for value, _ in hits)
    notable = {name for value, name in hits if value >= 6}
    rating = max(base, best) + (1 if len(notable) >= 2 else 0)
    return max(1, min(10, rating))


def topic_rater(topics: Sequence[Topic]) -> ImportanceRater:
    """:func:`heuristic_importance` with an agent's village topics."""
    if not topics:
        return heuristic_importance
    return functools.partial(heuristic_importance, topics=tuple(topics))


def render_importance_prompt(
    text: str, kind: MemoryKind, agent: str, identity: str = ""
) -> RenderedPrompt:
    """The LLM importance prompt for one memory (answer: :class:`ImportanceRating`)."""
    return render_agent_prompt(
        "importance", agent, identity, kind=kind, memory=quote_untrusted(text)
    )


def render_importance_batch_prompt(
    items: Sequence[tuple[str, MemoryKind]], agent: str, identity: str = ""
) -> RenderedPrompt:
    """The LLM prompt rating several memories at once (answer: ``ratings_model(len(items))``)."""
    lines = [FENCE_OPEN]
    lines += [f"{i}. [{kind}] {quote_untrusted(text)}" for i, (text, kind) in enumerate(items, 1)]
    lines.append(FENCE_CLOSE)
    return render_agent_prompt(
        "importance_batch", agent, identity, count=len(items), memories="\n".join(lines)
    )
