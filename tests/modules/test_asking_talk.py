"""The ask gate's talk occasions (issue 30): once the agent may start a conversation again
(its own last line ``TALK_GAP_S`` old), someone in view it has not spoken to (``unmet``) or
the end of its gap with someone in view (``company``) is a reason to ask its model, also
while a skill runs; each occasion once. (The controller greeting on such an occasion while
its standing step runs: ``tests/modules/test_asking.py``.)"""

from __future__ import annotations

from agent_runtime.state.sections import (
    Action,
    Conversation,
    Decision,
    Perception,
    Utterance,
)
from agent_runtime.world import NearbyPlayer, Observation, SkillCall, Vec3
from modules.controller.asking import Situation, situation, why
from modules.heuristics.controller import TALK_GAP_S
from tests.modules.helpers import NOW, bview

RUNNING = Action(running=SkillCall(skill="collect", args={"block": "oak_log"}), started_at=NOW - 5)


def seeing(*names: str) -> Perception:
    players = tuple(
        NearbyPlayer(name=n, position=Vec3(x=1, y=64, z=1), distance=3.0) for n in names
    )
    return Perception(observation=Observation(food=20, health=20, players=players))


def said(to: str, at: float) -> Conversation:
    """Ann's own last line, to ``to`` at ``at``."""
    line = Utterance(speaker="Ann", text="Hi", to=to, at=at)
    return Conversation(lines=(line,), last_utterance=line, spoke_to={to: at})


def at(now: float, conversation: Conversation, *names: str) -> Situation:
    """Ann's situation at ``now`` while her skill runs, seeing ``names``."""
    view = bview(now, perception=seeing(*names), action=RUNNING, conversation=conversation)
    return situation(view, Decision())


def test_someone_not_greeted_in_view_is_a_reason_while_a_skill_runs() -> None:
    quiet = Conversation()
    alone = at(NOW, quiet)
    assert why(alone, at(NOW + 1, quiet, "Bob"), 60.0) == ["unmet"]
    met = said("Bob", NOW - 200)
    assert why(at(NOW, met), at(NOW + 1, met, "Bob"), 60.0) == []  # spoken to before
    # asked with Bob in view and not greeting him: he is no reason again
    seen = at(NOW + 1, quiet, "Bob")
    assert why(seen, at(NOW + 2, quiet, "Bob"), 60.0) == []
    assert why(seen, at(NOW + 2, quiet, "Bob", "Cleo"), 60.0) == ["unmet"]


def test_a_greeting_waits_for_the_end_of_the_agents_talk_gap() -> None:
    """Cleo comes into view while Ann's last line (to Bob) is recent: no reason yet; when
    her gap ends, Cleo (a chance she could not take) and the company are."""
    recent = said("Bob", NOW)
    before = at(NOW + 1, recent)
    assert why(before, at(NOW + 2, recent, "Cleo"), 60.0) == []
    asked_meanwhile = at(NOW + 3, recent, "Cleo")
    end = NOW + TALK_GAP_S + 1
    assert why(asked_meanwhile, at(end, recent, "Cleo"), 600.0) == ["unmet", "company"]


def test_the_end_of_the_talk_gap_with_someone_in_view_is_a_reason_once() -> None:
    recent = said("Bob", NOW)
    before = at(NOW + 10, recent, "Bob")
    end = NOW + TALK_GAP_S + 1
    assert why(before, at(end, recent, "Bob"), 600.0) == ["company"]
    assert why(before, at(end, recent), 600.0) == []  # alone
    asked = at(end, recent, "Bob")  # asked then, and said nothing
    assert why(asked, at(end + 5, recent, "Bob"), 600.0) == []
