"""Seed memories from an agent's own identity: one record per sentence (Generative Agents).

Traits, location memories and the community goal are split on sentence ends and
semicolons; each sentence becomes a ``seed`` memory with the importance of its origin.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from modules.memory.records import NewMemory

__all__ = ["SEED_IMPORTANCE", "seed_items", "split_sentences"]

#: Importance given to seed memories, by origin.
SEED_IMPORTANCE: dict[str, int] = {"trait": 6, "location": 5, "goal": 8}

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


def split_sentences(text: str) -> list[str]:
    """Split on ``.``, ``!``, ``?`` or ``;`` followed by whitespace; trailing ``;`` dropped."""
    out = []
    for part in _SENTENCE_END.split(text.strip()):
        s = part.strip().rstrip(";").strip()
        if s:
            out.append(s)
    return out


def seed_items(
    traits: Sequence[str],
    location_memories: Sequence[str] = (),
    community_goal: str | None = None,
    created: float | None = None,
) -> list[NewMemory]:
    """The seed memories of one identity; community-goal sentences read ``Community goal: ...``."""

    def seeds(texts: Sequence[str], origin: str, prefix: str = "") -> list[NewMemory]:
        return [
            NewMemory(prefix + s, "seed", SEED_IMPORTANCE[origin], created=created, source="seed")
            for text in texts
            for s in split_sentences(text)
        ]

    goal = [community_goal] if community_goal else []
    return (
        seeds(traits, "trait")
        + seeds(location_memories, "location")
        + seeds(goal, "goal", "Community goal: ")
    )
