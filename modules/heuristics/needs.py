"""Asking for what the agent's OWN traits say it needs (e.g. "You are hungry and need bread").

A pure function of the controller's view: the agent's own trait sentences, its own inventory,
the players it perceives and its own conversation. When a trait sentence asks for an item
(:func:`modules.heuristics.asked.requested_item`'s words and aliases) and the agent holds
none of it, it asks one player it perceives: one named in its own traits when any of those
is near (e.g. "Marla is the village chef"), else anyone near; never the same player again
within ``ASK_GAP_S`` of the agent's time. The words are neutral; the speaker's own warmth colours them
(:func:`modules.heuristics.talking.with_tone`), as every heuristic line. Nobody's config,
inventory or attitude is read: whether the other gives is the other's own decision.
"""

from __future__ import annotations

import random

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.state.sections import UtteranceGoal, UtteranceKind
from modules.heuristics.asked import ITEM_ALIASES, is_request, requested_item
from modules.heuristics.talking import with_tone

__all__ = ["ASK_GAP_S", "ask", "needed"]

ASK_GAP_S = 60.0  # not the same player again sooner (agent's time)


def needed(view: BottleneckView) -> str | None:
    """The word for an item its own traits say it needs and it holds none of, or None."""
    inv = view.perception.inventory
    for trait in view.identity.traits:
        if not is_request(trait):
            continue
        _, word, _ = requested_item(trait, {})
        if word and not any(inv.get(it, 0) > 0 for it in ITEM_ALIASES.get(word, (word,))):
            return word
    return None


def _whom(view: BottleneckView) -> str | None:
    """Whom to ask now: of the players it perceives, those its own profile names (if any is
    near; else anyone near), one it has not spoken to within ``ASK_GAP_S``."""
    conv, me = view.conversation, view.identity.name
    profile = " ".join(view.identity.traits).lower()
    near = [p for p in view.perception.players if p != me]
    pool = [p for p in near if p.lower() in profile] or near
    gap = view.seconds(ASK_GAP_S)
    return next((p for p in pool if view.now - conv.spoke_to.get(p, -1e18) >= gap), None)


def ask(view: BottleneckView, rng: random.Random) -> tuple[str, str, UtteranceGoal] | None:
    """(whom, the word asked for, what to say) when the agent should ask someone now."""
    word = needed(view)
    if word is None:
        return None
    who = _whom(view)
    if who is None:
        return None
    text = with_tone(f"{who}, can I have some {word.replace('_', ' ')}? I need it.",
                     view.identity.traits, rng)
    return who, word, UtteranceGoal(kind=UtteranceKind.FREE, to=who, text=text)
