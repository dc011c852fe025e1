"""Social awareness: per-person summary, sentiment (0 hate .. 10 love), inferred activity,
and the agent's own opinion per topic (``Social.opinions``).

Active only when others are near or talking (the paper engages it selectively). Every
heard line updates its speaker's entry through the person policy (heuristic:
:func:`modules.heuristics.social.update_person`; LLM: ``prompts/social_awareness.md``),
which sees only that line and what the agent already thought of the speaker. On-topic
lines (content only, no speaker) are kept as evidence, and the opinion policy turns them
and the agent's own traits into its stance. :func:`social_graph` exports the directed
graph (edge = sentiment) of a whole village.
"""

from __future__ import annotations

from typing import ClassVar

from agent_runtime.bus.messages import HEARD
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Identity, Perception, PersonView, Social
from modules.base import remember
from modules.heuristics.social import (
    OpinionOut,
    SocialUpdate,
    on_topic,
    opinions,
    sentiment_delta,
    update_person,
)
from modules.policies import decide, module_policy
from modules.views import opinion_view, person_view

TOPIC_LINES = 20

__all__ = ["SocialAwareness", "SocialUpdate", "sentiment_delta", "social_graph"]


class SocialAwareness(Module):
    name: ClassVar[str] = "social_awareness"
    reads: ClassVar[frozenset[str]] = frozenset({"identity", "perception", "social"})
    writes: ClassVar[frozenset[str]] = frozenset({"social"})

    async def step(self, ctx: ModuleContext) -> None:
        ident = ctx.read("identity", Identity)
        near = set(ctx.read("perception", Perception).others_near)
        heard = ctx.pending(HEARD)
        social = ctx.read("social", Social)
        now = ctx.clock.now()
        if not (near or heard or (ident.traits and ident.topics and not social.opinions)):
            if social.active:
                ctx.write("social", social.model_copy(update={"active": False, "updated_at": now}))
            return
        people = dict(social.people)
        for name in near:
            p = people.get(name) or PersonView(name=name)
            people[name] = p.model_copy(update={"last_seen": now})
        topic_lines = {t: list(v) for t, v in social.topic_lines.items()}
        brain = social.brain
        person_policy = module_policy(
            ctx, SocialUpdate, update_person, prompt="social_awareness", max_tokens=200
        )
        for h in heard:
            who, text = h.sender, h.message
            if not who or who == ident.name or not text:
                continue
            for t in ident.topics:  # what its village talks about (its Identity)
                if on_topic(text, t):
                    lines = [*topic_lines.get(t.name, []), text]
                    topic_lines[t.name] = lines[-TOPIC_LINES:]
            if h.announcement:
                continue  # an announcement is news, not a person to get to know
            state = social.model_copy(update={"people": people})
            view = person_view(ident, state, who, text, h.at or now)
            got = await decide(ctx, person_policy, view)
            upd, brain = got.value, got.brain
            before = view.person.sentiment
            people[who] = view.person.model_copy(
                update={
                    "summary": upd.summary,
                    "sentiment": upd.sentiment,
                    "activity": upd.activity,
                    "last_seen": now,
                    "interactions": view.person.interactions + 1,
                }
            )
            if abs(upd.sentiment - before) >= 1.5:
                feel = "warmer" if upd.sentiment > before else "colder"
                remember(
                    ctx, f"I feel {feel} towards {who} now ({upd.sentiment:.0f}/10).", "reflection"
                )
        new = social.model_copy(
            update={"topic_lines": {t: tuple(v) for t, v in topic_lines.items()}}
        )
        opinion_policy = module_policy(ctx, OpinionOut, opinions)
        mine = (await decide(ctx, opinion_policy, opinion_view(ident, new))).value.opinions
        for topic, value in mine.items():
            old = social.opinions.get(topic)
            if old is not None and abs(value - old) >= 0.25:
                remember(
                    ctx,
                    f"My view on the {topic} changed ({old:+.1f} -> {value:+.1f}).",
                    "reflection",
                )
        ctx.write(
            "social",
            new.model_copy(
                update={
                    "people": people,
                    "opinions": mine,
                    "active": True,
                    "brain": brain,
                    "updated_at": now,
                }
            ),
        )


def social_graph(states: dict[str, Social]) -> dict[str, dict[str, float]]:
    """Directed graph: ``graph[a][b]`` = a's sentiment towards b."""
    return {a: {b: p.sentiment for b, p in s.people.items()} for a, s in states.items()}
