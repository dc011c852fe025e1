"""A request that reaches the agent's record late is still answered.

Under CPU load a line reaches the agent's conversation record (talking notes it) seconds after
its body heard it. Meanwhile the controller may decide from a view without it: a skill to
start, or a reply to the speaker's earlier line. Neither may hold the request back:

- a skill decided before the request was noted is preempted by the give (it would otherwise
  run on, a collect up to 90 s, past the 30 s in which a line is answered at all);
- a reply decided before the request was noted, however late its words went out, does not
  answer it (the agent's record says when it decided what it said).
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Heard
from agent_runtime.clock import wall_time
from agent_runtime.module import Schedule
from agent_runtime.state.sections import (
    Action,
    Conversation,
    Decision,
    IntentKind,
    Perception,
    Utterance,
    UtteranceGoal,
    UtteranceKind,
)
from agent_runtime.world import Observation, SkillCall
from modules.controller.commitment import replacement_reason
from modules.controller.module import CognitiveController
from modules.heuristics.asked import unanswered
from modules.talking import Talking
from tests.modules.helpers import NOW, agent_state, bview

COLLECT = SkillCall(skill="collect", args={"block": "oak_log", "count": 4})
GIVE = SkillCall(skill="give", args={"player": "Hugo", "item": "bread", "count": 1})
ASK = "Ann, could you give me bread?"
BREAD = Perception(observation=Observation(inventory={"bread": 3}))


def _asked(at: float, noted: float, **conv: Any) -> Conversation:
    line = Utterance(speaker="Hugo", text=ASK, to="Ann", at=at, noted_at=noted)
    return Conversation(lines=(line,), **conv)


def test_an_unanswered_request_preempts_a_skill_decided_before_it_was_noted() -> None:
    # heard 2 s before the collect started, noted by the agent's record only after it started
    running = Action(running=COLLECT, started_at=NOW - 1)
    late = _asked(NOW - 2, NOW - 0.5)
    assert replacement_reason(bview(action=running, conversation=late), GIVE) == "request"
    # once answered (a refusal, say), an old request is no reason to drop the work
    answered = _asked(NOW - 2, NOW - 0.5, spoke_to={"Hugo": NOW - 0.2})
    assert replacement_reason(bview(action=running, conversation=answered), GIVE) is None
    # a give to someone else is no answer to Hugo's request
    other = GIVE.model_copy(update={"args": {**GIVE.args, "player": "Cleo"}})
    assert replacement_reason(bview(action=running, conversation=late), other) is None


async def test_the_controller_gives_instead_of_keeping_a_collect_decided_without_the_line() -> None:
    now = wall_time()
    async with local_services() as svc:
        agent_state(
            svc,
            perception=BREAD,
            action=Action(running=COLLECT, started_at=now - 1),
            conversation=_asked(now - 2, now - 0.5),
        )
        seen: list[dict[str, Any]] = []
        svc.events.add_listener(seen.append)
        cc = CognitiveController(Schedule(cadence=3.0))
        await cc.step(module_context(svc, cc, agent="Ann"))
        decided = svc.store.agent("Ann").get("decision", Decision)
        assert decided.skill == GIVE, [e for e in seen if e["type"] == "decision"]
        assert [e["reason"] for e in seen if e["type"] == "skill_preempted"] == ["request"]


@pytest.mark.parametrize("heard", [-0.5, -1.5], ids=["heard_after", "heard_before"])
async def test_a_reply_decided_before_a_request_was_noted_does_not_answer_it(
    heard: float,
) -> None:
    """Ann decided to greet Hugo (his "Hello" 1 s ago); his request came in before her words
    went out: heard after her decision, or before it but noted only after it. The greeting
    answers the "Hello", not the request: her controller then gives."""
    async with local_services() as svc:
        now = wall_time()
        hello = Utterance(speaker="Hugo", text="Hello Ann!", to="Ann", at=now - 3, noted_at=now - 2)
        agent_state(svc, perception=BREAD, conversation=Conversation(lines=(hello,)))
        talk = Talking(
            Schedule(cadence=None, triggers=frozenset({"topic:decision", "topic:heard"}))
        )
        body = RecordingBody("Ann")
        tctx = module_context(svc, talk, agent="Ann", body=body)
        greet = Decision(
            id="g",
            kind=IntentKind.TALK,
            intent="answer Hugo",
            say=UtteranceGoal(kind=UtteranceKind.GREET, to="Hugo"),
            brain="heuristic",
            updated_at=now - 1,
        )
        heard_msg = Heard(sender="Hugo", message=ASK, to_me=True, at=now + heard)
        await svc.bus.publish(topics.agent(svc.run_id, "Ann", "heard"), heard_msg)
        await svc.bus.publish(topics.agent(svc.run_id, "Ann", "decision"), greet)
        await talk.step(tctx)  # notes the request, then says the greeting
        assert [c.skill for c in body.calls] == ["chat"]
        conv = svc.store.agent("Ann").get("conversation", Conversation)
        view = bview(now=wall_time(), conversation=conv, perception=BREAD)
        waiting = unanswered(view)
        assert waiting is not None and waiting.text == ASK, conv.spoke_to
        assert unanswered(view, "Hugo") == waiting and unanswered(view, "Cleo") is None
        cc = CognitiveController(Schedule(cadence=3.0))
        await cc.step(module_context(svc, cc, agent="Ann"))
        assert svc.store.agent("Ann").get("decision", Decision).skill == GIVE
