"""The agent's reading of its OWN personality (its identity traits), never anyone else's.

``talkativeness(traits)`` and ``warmth(traits)`` score the trait sentences with the
lexicons ``lexicons/talkative_stance.txt`` and ``lexicons/warmth_stance.txt`` (same rules as
:mod:`modules.heuristics.stance`), in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Sequence

from modules.heuristics.stance import stance_of

__all__ = ["talkativeness", "warmth"]


def talkativeness(traits: Sequence[str]) -> float:
    """+1 talkative/outgoing .. -1 shy/quiet, from the agent's own traits."""
    return stance_of(traits, "talkative")


def warmth(traits: Sequence[str]) -> float:
    """+1 warm (kind, generous, cheerful) .. -1 cold (grumpy, rude, stingy)."""
    return stance_of(traits, "warmth")
