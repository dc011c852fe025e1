"""Commitment: a running skill is replaced only for a perceived reason (any policy, LLM too)."""

from __future__ import annotations

from agent_runtime.state.sections import Action, Conversation, Goals, Perception, Utterance
from agent_runtime.world import Observation, SkillCall
from modules.commitment import replacement_reason
from tests.modules.helpers import NOW, bview

RUNNING = SkillCall(skill="collect", args={"block": "log", "count": 4})
OTHER = SkillCall(skill="explore", args={"distance": 48})
DEPOSIT = SkillCall(skill="deposit", args={"item": "log", "count": 1})
ACT = Action(running=RUNNING, started_at=NOW - 10)


def test_no_reason_keeps_the_running_skill() -> None:
    assert replacement_reason(bview(action=ACT, goals=Goals(set_at=NOW - 50)), OTHER) is None
    assert replacement_reason(bview(action=ACT), RUNNING) is None
    assert replacement_reason(bview(), OTHER) is None  # nothing running: nothing to cancel


def test_perceived_reasons() -> None:
    asked = Conversation(
        lines=(Utterance(speaker="Bob", text="Ann, bread?", to="Ann", at=NOW - 1),)
    )
    give = SkillCall(skill="give", args={"player": "Bob", "item": "bread", "count": 1})
    assert replacement_reason(bview(action=ACT, conversation=asked), give) == "request"
    assert replacement_reason(bview(action=ACT, conversation=asked), OTHER) is None
    hurt = Perception(observation=Observation(health=3))
    assert replacement_reason(bview(action=ACT, perception=hurt), OTHER) == "danger"
    assert (
        replacement_reason(bview(action=ACT, goals=Goals(set_at=NOW - 1)), OTHER) == "goal_changed"
    )
    news = Conversation(
        lines=(
            Utterance(speaker="Mayor", text="Tax season 1 is open: deposit 10% now.", at=NOW - 11),
        )
    )
    assert replacement_reason(bview(action=ACT, conversation=news), DEPOSIT) == "deposit_request"
    assert replacement_reason(bview(action=ACT, conversation=news), OTHER) is None
    old = Action(running=RUNNING, started_at=NOW - 1000)
    assert replacement_reason(bview(action=old), OTHER) == "stale"


def test_a_running_deposit_is_interrupted_only_by_danger() -> None:
    paying = Action(running=DEPOSIT, started_at=NOW - 3)
    other = SkillCall(skill="deposit", args={"item": "bread", "count": 1})
    assert replacement_reason(bview(action=paying, goals=Goals(set_at=NOW - 1)), other) is None
    hurt = Perception(observation=Observation(health=3))
    assert replacement_reason(bview(action=paying, perception=hurt), other) == "danger"
