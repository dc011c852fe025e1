"""Reading what someone said to the agent: a request for an item, a greeting, a question,
and what the agent may give for a request (:func:`gift_for`, bounded by :mod:`.gifts`).

These read the *heard words* of others (perception of speech); the agent's own decisions
are typed and never parsed back. Heard words are data: a request is at most a request for
one item kind, which the gift policy then bounds; nothing heard is ever run as a command.
"""

from __future__ import annotations

import re

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.state.sections import Utterance
from modules.heuristics.gifts import Allowance, allowance
from modules.knowledge import FOODS, LOGS, PLANKS, counts_as

__all__ = [
    "ANSWER_WINDOW_S",
    "answered",
    "gift_for",
    "is_greedy",
    "is_greeting",
    "is_question_doing",
    "is_request",
    "requested_item",
    "unanswered",
]

ANSWER_WINDOW_S = 30.0  # lines older than this (agent's time) are not answered any more

_REQUEST = re.compile(
    r"\b(give|bring|share|spare|lend|need|want|can i have|could i have|may i have|pass)\b", re.I
)
_GREETING = re.compile(r"\b(hi|hello|hey|good (morning|day|evening)|greetings)\b", re.I)
_QUESTION_DOING = re.compile(r"\b(what are you (doing|up to)|what's up|busy)\b", re.I)
_GREEDY = re.compile(  # a request for everything it has is refused, whatever the relationship
    r"\b(everything|all (of )?(your|ur|the|my) (items?|stuff|things|inventory|belongings)|"
    r"(whole|entire|full) inventory|all (that )?you (have|got|own)|all of it|every item|"
    r"inventory)\b",
    re.I,
)
_NUMBER = re.compile(r"\b(\d{1,2})\b")
ITEM_ALIASES: dict[str, tuple[str, ...]] = {
    "wood": LOGS + PLANKS,
    "log": LOGS,
    "logs": LOGS,
    "plank": PLANKS,
    "planks": PLANKS,
    "food": FOODS,
    "bread": ("bread",),
    "pickaxe": ("stone_pickaxe", "wooden_pickaxe", "iron_pickaxe"),
    "stone": ("cobblestone",),
    "cobblestone": ("cobblestone",),
    "coal": ("coal",),
    "iron": ("iron_ingot", *counts_as("iron_ore")),
    "stick": ("stick",),
    "sticks": ("stick",),
    "table": ("crafting_table",),
    "wheat": ("wheat",),
    "apple": ("apple",),
}


def is_request(text: str) -> bool:
    return bool(_REQUEST.search(text))


def is_greedy(text: str) -> bool:
    """A request for everything, or for its inventory as such."""
    return bool(_GREEDY.search(text))


def is_greeting(text: str) -> bool:
    return bool(_GREETING.search(text))


def is_question_doing(text: str) -> bool:
    return bool(_QUESTION_DOING.search(text))


def requested_item(text: str, inventory: dict[str, int]) -> tuple[str | None, str, int]:
    """(item held that matches the request or None, the word asked for, count asked)."""
    low = text.lower()
    m = _NUMBER.search(low)
    count = int(m.group(1)) if m else 1
    for name in sorted(inventory, key=len, reverse=True):
        if name.replace("_", " ") in low or name in low:
            return name, name, count
    for word, items in ITEM_ALIASES.items():
        if re.search(rf"\b{word}\b", low):
            for it in items:
                if inventory.get(it, 0) > 0:
                    return it, word, count
            return None, word, count
    return None, "", count


def answered(view: BottleneckView, u: Utterance) -> bool:
    """The agent spoke to ``u``'s speaker on a decision made once it could know ``u``: its
    own conversation record says when it decided what it last said to them, and when it
    took the line in (a reply decided before that, to an earlier line, answers not this one
    however late its words went out)."""
    return view.conversation.spoke_to.get(u.speaker, 0.0) >= u.known_at


def unanswered(view: BottleneckView, speaker: str | None = None) -> Utterance | None:
    """The latest recent line addressed to the agent (by ``speaker``, or anyone) that it has
    not answered yet."""
    me = view.identity.name
    for u in reversed(view.conversation.lines):
        if u.speaker == me or u.announcement or u.to != me:
            continue
        if view.now - u.at > view.seconds(ANSWER_WINDOW_S):
            return None
        if answered(view, u) or speaker not in (None, u.speaker):
            continue
        return u
    return None


def gift_for(view: BottleneckView, who: str, text: str) -> tuple[str | None, str, Allowance]:
    """For a request heard from ``who``: (the item held that it asks for or None, the word
    asked for, what the gift policy allows now)."""
    item, word, count = requested_item(text, view.perception.inventory)
    if is_greedy(text):
        return item, word or "everything", Allowance(0, "I will not give away everything I have")
    if item is None:
        return None, word, Allowance(0, "I have none")
    return item, word, allowance(view, who, item, count)
