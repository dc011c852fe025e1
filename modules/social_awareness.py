"""Social awareness: per-person summary, sentiment (0 hate .. 10 love) and inferred activity.

Active only when others are near or talking (the paper engages it selectively).
Heard lines update the speaker's entry: sentiment moves with friendly or
hostile words, the activity is inferred from what they say they are doing, and
the summary keeps the gist. :func:`social_graph` exports the directed graph
(edge = sentiment) of a whole village.
"""

from __future__ import annotations

import re
import time
from typing import ClassVar

from pydantic import BaseModel, Field

from agent_runtime.interfaces import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Identity, Perception, PersonView, Social
from modules.base import remember, short
from modules.brain import choose
from modules.prompts import untrusted

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
DOING = re.compile(r"\b(i'?m|i am|i will|i'll|going to|gonna)\b(.{3,80})", re.I)


class SocialUpdate(BaseModel):
    summary: str = Field(max_length=300)
    sentiment: float = Field(ge=0, le=10)
    activity: str = Field(default="", max_length=120)


def sentiment_delta(text: str) -> float:
    return 0.8 * len(FRIENDLY.findall(text)) - 1.2 * len(HOSTILE.findall(text))


def heuristic_update(person: PersonView, text: str) -> SocialUpdate:
    delta = sentiment_delta(text)
    sentiment = min(10.0, max(0.0, person.sentiment + delta))
    activity = person.activity
    m = DOING.search(text)
    if m:
        activity = short(m.group(2).strip(" .!,"), 100)
    tone = "friendly" if sentiment >= 6.5 else "unfriendly" if sentiment <= 3.5 else "neutral"
    summary = f"{person.name} seems {tone} towards me"
    if activity:
        summary += f"; says they are {activity}"
    summary += f"; last said «{short(text, 80)}»"
    return SocialUpdate(summary=summary, sentiment=round(sentiment, 2), activity=activity)


class SocialAwareness(Module):
    name: ClassVar[str] = "social_awareness"
    reads: ClassVar[frozenset[str]] = frozenset({"identity", "perception", "social"})
    writes: ClassVar[frozenset[str]] = frozenset({"social"})

    async def step(self, ctx: ModuleContext) -> None:
        me = ctx.read("identity", Identity).name
        per = ctx.read("perception", Perception)
        heard = [m.payload for m in ctx.pending("topic:heard")]
        social = ctx.read("social", Social)
        near = set(per.others_near)
        active = bool(near or heard)
        if not active:
            if social.active:
                ctx.write(
                    "social", social.model_copy(update={"active": False, "updated_at": time.time()})
                )
            return
        people = dict(social.people)
        now = time.time()
        for name in near:
            p = people.get(name) or PersonView(name=name)
            people[name] = p.model_copy(update={"last_seen": now})
        brain = social.brain
        for h in heard:
            who = str(h.get("sender", ""))
            if not who or who == me:
                continue
            text = str(h.get("message", ""))
            person = people.get(who) or PersonView(name=who)

            def heuristic(person: PersonView = person, text: str = text) -> SocialUpdate:
                return heuristic_update(person, text)

            upd, brain = await choose(
                ctx,
                "social_awareness",
                SocialUpdate,
                {
                    "name": me,
                    "person": who,
                    "summary": person.summary or "(nothing yet)",
                    "sentiment": f"{person.sentiment:.1f}",
                    "activity": person.activity or "(unknown)",
                    "heard": untrusted(text),
                },
                heuristic,
                max_tokens=200,
            )
            before = person.sentiment
            people[who] = person.model_copy(
                update={
                    "summary": upd.summary,
                    "sentiment": upd.sentiment,
                    "activity": upd.activity,
                    "last_seen": now,
                    "interactions": person.interactions + 1,
                }
            )
            if abs(upd.sentiment - before) >= 1.5:
                feel = "warmer" if upd.sentiment > before else "colder"
                remember(
                    ctx, f"I feel {feel} towards {who} now ({upd.sentiment:.0f}/10).", "reflection"
                )
        ctx.write("social", Social(people=people, active=True, brain=brain, updated_at=now))


def social_graph(states: dict[str, Social]) -> dict[str, dict[str, float]]:
    """Directed graph: ``graph[a][b]`` = a's sentiment towards b."""
    return {a: {b: p.sentiment for b, p in s.people.items()} for a, s in states.items()}
