"""Memory records: one validated, immutable object per memory.

Time unit: **game hours** (float) on the run's game clock. In Minecraft one
day is 24000 ticks = 24 game hours, so 1 game hour = 1000 ticks = 50 real
seconds at 20 ticks/s; use :func:`ticks_to_hours` to convert a world age in
ticks. Recency decay (paper: 0.995 per game hour) is applied to the hours
elapsed since ``last_accessed``.

Token estimate: ``ceil(len(text) / 4)`` (at least 1) — the usual rule of
thumb for English with GPT-style tokenisers; it is only used to fit
retrieved memories into a prompt budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, model_validator

from agent_runtime.config.strict import Strict

__all__ = [
    "MEMORY_KINDS",
    "MemoryKind",
    "MemoryRecord",
    "NewMemory",
    "estimate_tokens",
    "ticks_to_hours",
]

MemoryKind = Literal["observation", "action", "conversation", "reflection", "plan", "seed"]

#: All kinds, in a fixed order (their index is the kind code used in numpy caches).
MEMORY_KINDS: tuple[MemoryKind, ...] = (
    "observation",
    "action",
    "conversation",
    "reflection",
    "plan",
    "seed",
)

TICKS_PER_GAME_HOUR = 1000.0


def ticks_to_hours(ticks: float) -> float:
    """Minecraft world age in ticks -> game hours (24000 ticks per 24-hour day)."""
    return ticks / TICKS_PER_GAME_HOUR


def estimate_tokens(text: str) -> int:
    """Approximate prompt tokens of ``text``: ``max(1, ceil(len(text) / 4))``."""
    return max(1, math.ceil(len(text) / 4))


class MemoryRecord(Strict):
    """One memory of one agent.

    ``id`` is a per-agent sequence number (1, 2, ...), unique within the
    agent's stream; ``evidence`` holds ids of the same agent's records that
    support this one (reflections cite what they were inferred from).
    ``created`` and ``last_accessed`` are game hours. ``source`` names what
    produced the importance/text: ``"heuristic"``, ``"seed"``, ``"llm:<model>"``.
    """

    id: int = Field(ge=1)
    agent: str = Field(min_length=1)
    text: str = Field(min_length=1)
    kind: MemoryKind
    created: float
    last_accessed: float
    importance: int = Field(ge=1, le=10)
    evidence: tuple[int, ...] = ()
    source: str = "heuristic"
    tokens: int = Field(default=0, ge=0)  # 0 on input -> estimate_tokens(text)

    @model_validator(mode="before")
    @classmethod
    def _fill_tokens(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("tokens") and isinstance(data.get("text"), str):
            return {**data, "tokens": estimate_tokens(data["text"])}
        return data


@dataclass(frozen=True, slots=True)
class NewMemory:
    """One memory to add with :meth:`MemoryStream.add_many`.

    ``counted`` False: the record never adds to the reflection trigger (the agent's own
    intentions, e.g. "I decided to ..."; its perceived outcome is what counts)."""

    text: str
    kind: MemoryKind
    importance: int | None = None
    evidence: tuple[int, ...] = ()
    created: float | None = None
    source: str | None = None
    counted: bool = True
