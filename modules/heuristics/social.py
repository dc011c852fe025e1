"""Social awareness heuristics: how the agent sees another person, and its own opinions.

Both read only what the agent heard (and its own traits):

- :func:`update_person` moves the sentiment towards a speaker with friendly or hostile
  words in what the speaker said, infers their activity from "I'm going to ..." and
  writes a summary of the traits the agent *perceives* in them: tone, how much they talk
  (lines heard so far) and the stance of their words on a topic (content, not identity).
- :func:`opinions` is the agent's own stance per topic: :func:`stance_of` over its own
  trait sentences and the on-topic lines it heard (the speakers are not given).

The topics are the ones its village handed it (``Identity.topics``, an experiment's words,
given in its view); a plain village has none, and then it holds no opinion.
"""

from __future__ import annotations

import random
import re

from pydantic import BaseModel, Field

from agent_runtime.config.topics import Topic
from modules.base import short
from modules.heuristics.stance import lexicon_of, line_score, stance_of, words
from modules.views import OpinionView, PersonUpdateView

__all__ = [
    "OpinionOut",
    "SocialUpdate",
    "on_topic",
    "opinions",
    "sentiment_delta",
    "update_person",
]

FRIENDLY = re.compile(
    r"\b(thanks?|thank you|please|friend|great|love|glad|happy|welcome|here is|here's|sure|"
    r"nice|wonderful|appreciate|help you|good job|well done|kind)\b",
    re.I,
)
HOSTILE = re.compile(
    r"\b(stupid|hate|idiot|go away|shut up|ugly|liar|useless|leave me alone|annoying|"
    r"no way|never|thief|get lost|ugh|whatever|lazy)\b",
    re.I,
)
DOING = re.compile(r"\b(going to|trying to|gonna|working on|off to)\s+(.{3,80})", re.I)
TALKATIVE_AFTER = 6  # lines heard from someone before they seem talkative


class SocialUpdate(BaseModel):
    summary: str = Field(max_length=300)
    sentiment: float = Field(ge=0, le=10)
    activity: str = Field(default="", max_length=120)


class OpinionOut(BaseModel):
    opinions: dict[str, float] = Field(default_factory=dict)


def sentiment_delta(text: str) -> float:
    return 0.8 * len(FRIENDLY.findall(text)) - 1.2 * len(HOSTILE.findall(text))


def on_topic(text: str, topic: Topic) -> bool:
    return bool(lexicon_of(topic).topic_words.intersection(words(text)))


def update_person(view: PersonUpdateView, rng: random.Random) -> SocialUpdate:
    """The heuristic social-awareness policy for one heard line."""
    person, text = view.person, view.heard
    sentiment = min(10.0, max(0.0, person.sentiment + sentiment_delta(text)))
    activity = person.activity
    m = DOING.search(text)
    if m:
        activity = short(m.group(2).strip(" .!,"), 100)
    tone = "friendly" if sentiment >= 6.5 else "unfriendly" if sentiment <= 3.5 else "neutral"
    parts = [f"{person.name} seems {tone} towards me"]
    if person.interactions + 1 >= TALKATIVE_AFTER:
        parts.append("talks a lot")
    if activity:
        parts.append(f"says they are {activity}")
    for topic in view.topics:
        s = line_score(text, lexicon_of(topic))
        if s is not None and abs(s) >= 0.3:
            parts.append(f"sounds {'for' if s > 0 else 'against'} the {topic.name}")
    parts.append(f"last said «{short(text, 80)}»")
    return SocialUpdate(summary="; ".join(parts), sentiment=round(sentiment, 2), activity=activity)


def opinions(view: OpinionView, rng: random.Random) -> OpinionOut:
    """The agent's own stance per topic from its convictions and what it heard."""
    out = {}
    for topic in view.topics:
        lines = [*view.traits, *view.heard.get(topic.name, ())]
        out[topic.name] = round(stance_of(lines, topic), 4)
    return OpinionOut(opinions=out)
