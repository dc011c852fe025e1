"""Talking's heuristic policy: the words for a typed utterance goal, from templates.

The controller says *what* to communicate as an :class:`UtteranceGoal` (greet, answer,
agree_give, refuse, have_none, inform_activity, opinion, free); this renders it, then
colours it with the speaker's own warmth (its own traits); a greeting to someone it
remembers (its own memories about them) is a greeting again. An opinion is said in the
lines of the topic its village handed it (``TalkView.topics``: an experiment's words, not
the module's). Nothing is parsed back.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pydantic import BaseModel, Field

from agent_runtime.config.topics import Topic
from agent_runtime.state.sections import UtteranceGoal, UtteranceKind
from modules.heuristics.traits import warmth
from modules.views import TalkView

__all__ = ["MAX_CHARS", "UtteranceOut", "opinion_line", "render", "speak", "with_tone"]

MAX_CHARS = 240

_WARM_WORDS = ("Thanks, friend!", "Great to see you!", "Glad we work together.", "Happy to help!")
_COLD_WORDS = (
    "Ugh, whatever.",
    "Leave me alone after this.",
    "Don't be annoying.",
    "No way I do more.",
)


class UtteranceOut(BaseModel):
    text: str = Field(
        max_length=MAX_CHARS, description="exactly what you say, one or two sentences"
    )
    end_conversation: bool = False


def _item(goal: UtteranceGoal) -> str:
    return (goal.item or "that").replace("_", " ")


def opinion_line(name: str, stance: float, rng: random.Random, topics: Sequence[Topic] = ()) -> str:
    """A line for (``stance`` >= 0) or against the topic ``name``: one of the lines its
    village's topic gives, else a plain one."""
    topic = next((t for t in topics if t.name == name), None)
    pro = topic.say_for if topic is not None and topic.say_for else (f"I am for the {name}.",)
    con = (
        topic.say_against
        if topic is not None and topic.say_against
        else (f"I am against the {name}.",)
    )
    return rng.choice(pro if stance >= 0 else con)


def render(goal: UtteranceGoal, rng: random.Random, topics: Sequence[Topic] = ()) -> str:
    """The plain words for ``goal`` (an opinion in the words of its village's ``topics``)."""
    to = goal.to
    hello = f"{to}, " if to else ""
    match goal.kind:
        case UtteranceKind.AGREE_GIVE:
            n = goal.count or 1
            return f"Sure {to}, here is {n} {_item(goal)}." if to else f"Here is {n} {_item(goal)}."
        case UtteranceKind.REFUSE:
            return f"Sorry {hello}I can't spare any {_item(goal)} right now."
        case UtteranceKind.HAVE_NONE:
            return f"Sorry {hello}I don't have any {_item(goal)}."
        case UtteranceKind.GREET:
            doing = f" I'm trying to {goal.topic}." if goal.topic else ""
            return f"Hi {to}!{doing}" if to else f"Hi everyone!{doing}"
        case UtteranceKind.INFORM_ACTIVITY:
            return f"Hey {hello}I'm going to {goal.topic or 'keep busy'}."
        case UtteranceKind.ANSWER:
            return f"Got it, {to}." if to else "Got it."
        case UtteranceKind.OPINION:
            line = opinion_line(goal.topic or "that", goal.stance or 0.0, rng, topics)
            lead = line if line.startswith("I ") else line[0].lower() + line[1:]
            return f"{hello}{lead}" if to else line
        case UtteranceKind.FREE:
            return goal.text
    return ""


def with_tone(text: str, traits: tuple[str, ...], rng: random.Random) -> str:
    """Colour speech by the speaker's own warmth: warm traits add friendly words, cold hostile."""
    w = warmth(traits)
    if w > 0 and rng.random() < 0.6:
        return f"{text} {rng.choice(_WARM_WORDS)}"
    if w < 0 and rng.random() < 0.6:
        return f"{text} {rng.choice(_COLD_WORDS)}"
    return text


def speak(view: TalkView, rng: random.Random) -> UtteranceOut:
    """The heuristic talking policy: ``(view, rng) -> UtteranceOut``."""
    words = render(view.say, rng, view.topics)
    if view.say.kind == UtteranceKind.GREET and view.say.to and view.memories:
        words = words.replace(f"Hi {view.say.to}!", f"Good to see you again, {view.say.to}!", 1)
    if view.say.kind not in (UtteranceKind.FREE, UtteranceKind.OPINION):
        words = with_tone(words, view.traits, rng)
    return UtteranceOut(text=" ".join(words.split())[:MAX_CHARS])
