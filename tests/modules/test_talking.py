"""Talking: the words come from the typed utterance goal (never parsed back), in the
speaker's own tone; heard lines and announcements are recorded."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from typing import NamedTuple

from agent_runtime.agent_services import AgentServices
from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Heard
from agent_runtime.module import Schedule
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import (
    Conversation,
    Decision,
    Identity,
    IntentKind,
    UtteranceGoal,
    UtteranceKind,
)
from agent_runtime.world import SkillCall
from modules.heuristics.stance import stance_of
from modules.heuristics.talking import render, speak
from modules.talking import Talking
from modules.views import TalkView
from tests.modules.helpers import topic

TRIGGERED = Schedule(cadence=None, triggers=frozenset({"topic:decision", "topic:heard"}))


class Speaker(NamedTuple):
    svc: AgentServices
    body: RecordingBody
    talk: Talking
    ctx: ModuleContext


@contextlib.asynccontextmanager
async def bob_talking() -> AsyncIterator[Speaker]:
    """Bob's Talking module on local services, speaking through a recording body."""
    async with local_services() as svc:
        body = RecordingBody("Bob")
        talk = Talking(TRIGGERED)
        ctx = module_context(svc, talk, agent="Bob", body=body)
        svc.store.agent("Bob").set("identity", Identity(name="Bob"), writer="runtime")
        yield Speaker(svc, body, talk, ctx)


async def test_talking_says_what_the_decision_does() -> None:
    async with bob_talking() as (svc, body, talk, ctx):
        decision = Decision(
            id="d1",
            kind=IntentKind.GIVE,
            intent="give 1 bread to Ann",
            skill=SkillCall(skill="give", args={"player": "Ann", "item": "bread", "count": 1}),
            say=UtteranceGoal(kind=UtteranceKind.AGREE_GIVE, to="Ann", item="bread", count=1),
            brain="heuristic",
        )
        await svc.bus.publish(topics.agent(svc.run_id, "Bob", "decision"), decision)
        await talk.step(ctx)
        said = [c for c in body.calls if c.skill == "chat"]
        assert len(said) == 1
        text = str(said[0].args["message"])
        assert "bread" in text and "Ann" in text and "here is" in text.lower()
        conv = svc.store.agent("Bob").get("conversation", Conversation)
        assert conv.last_utterance is not None and conv.last_utterance.decision_id == "d1"
        assert "Ann" in conv.spoke_to
        assert svc.events.counts["speech"] == 1


async def test_only_the_newest_fresh_decision_is_spoken() -> None:
    async with bob_talking() as (svc, body, talk, ctx):
        now = ctx.clock.now()

        def greet(i: str, at: float) -> Decision:
            return Decision(
                id=i,
                kind=IntentKind.CONTINUE,
                intent="keep going",
                say=UtteranceGoal(kind=UtteranceKind.GREET, to="Ann"),
                brain="heuristic",
                updated_at=at,
            )

        topic = topics.agent(svc.run_id, "Bob", "decision")
        await svc.bus.publish(topic, greet("old", now - 60))  # e.g. from before a reconnect
        await talk.step(ctx)
        assert [c for c in body.calls if c.skill == "chat"] == []
        await svc.bus.publish(topic, greet("first", now))
        await svc.bus.publish(topic, greet("second", now))
        await talk.step(ctx)
        assert len([c for c in body.calls if c.skill == "chat"]) == 1
        conv = svc.store.agent("Bob").get("conversation", Conversation)
        assert conv.last_utterance is not None and conv.last_utterance.decision_id == "second"


async def test_heard_announcements_are_kept_apart() -> None:
    async with local_services() as svc:
        talk = Talking(TRIGGERED)
        ctx = module_context(svc, talk, agent="Ann")
        heard = topics.agent(svc.run_id, "Ann", "heard")
        await svc.bus.publish(
            heard,
            Heard(sender="Mayor", message="Tax season 1 is open.", announcement=True, at=5.0),
        )
        await svc.bus.publish(heard, Heard(sender="Bob", message="Ann, hi", to_me=True, at=6.0))
        await talk.step(ctx)
        conv = svc.store.agent("Ann").get("conversation", Conversation)
        assert [u.speaker for u in conv.lines] == ["Mayor", "Bob"]
        assert [u.speaker for u in conv.announcements] == ["Mayor"]
        assert conv.pending_reply_to == "Bob" and conv.lines[1].to == "Ann"


def test_every_goal_kind_renders_and_refusals_never_promise() -> None:
    rng = random.Random(0)
    for kind in UtteranceKind:
        goal = UtteranceGoal(
            kind=kind, to="Bob", item="bread", count=2, topic="tax", stance=-0.6, text="hello"
        )
        assert render(goal, rng)
    refuse = render(UtteranceGoal(kind=UtteranceKind.REFUSE, to="Bob", item="bread"), rng)
    assert "can't" in refuse and "here is" not in refuse.lower()


def test_opinions_are_voiced_as_content_that_reads_back_the_same_way() -> None:
    rng = random.Random(3)
    for stance in (-0.8, 0.8):
        goal = UtteranceGoal(kind=UtteranceKind.OPINION, topic="tax", stance=stance)
        line = render(goal, rng, (topic("tax"),))
        assert line in (*topic("tax").say_for, *topic("tax").say_against)
        assert stance_of([line], topic("tax")) * stance > 0


def test_an_opinion_on_a_topic_the_village_did_not_give_is_plain() -> None:
    """Without the village's topic the talker has no words of its own for it."""
    goal = UtteranceGoal(kind=UtteranceKind.OPINION, topic="tax", stance=0.8)
    assert render(goal, random.Random(3)) == "I am for the tax."


def test_tone_comes_from_the_speakers_own_traits() -> None:
    goal = UtteranceGoal(kind=UtteranceKind.ANSWER, to="Bob")
    warm = TalkView(name="Ann", traits=("You are cheerful and kind.",), say=goal)
    cold = TalkView(name="Ann", traits=("You are grumpy and rude.",), say=goal)
    warm_words = {speak(warm, random.Random(i)).text for i in range(10)}
    cold_words = {speak(cold, random.Random(i)).text for i in range(10)}
    assert any("friend" in w or "Glad" in w or "Great" in w or "Happy" in w for w in warm_words)
    assert any("Ugh" in w or "annoying" in w or "Leave" in w or "No way" in w for w in cold_words)
