"""Fulfilling a perceived deposit request (heuristics/deposit.py): read, not told."""

from __future__ import annotations

import pytest

from agent_runtime.state.sections import (
    Conversation,
    Identity,
    Perception,
    Social,
    Utterance,
    WorkingMemory,
    WorkingMemoryItem,
)
from agent_runtime.world import Observation, Vec3
from modules.heuristics.deposit import deposit_due, open_request, share_of
from tests.modules.helpers import NOW, bview, topic

OPEN = (
    "Tax season 2 is open for 20 seconds: deposit 20% of your inventory into the community chests."
)
RULE = (
    "Every member deposits 30% of their inventory into the community chests during each tax season."
)


def heard(*lines: tuple[str, float]) -> Conversation:
    return Conversation(lines=tuple(Utterance(speaker="Council", text=t, at=at) for t, at in lines))


def test_an_echo_counts_from_the_first_hearing() -> None:
    found = open_request(bview(conversation=heard((OPEN, NOW - 10), (OPEN, NOW - 2))))
    assert found is not None and found[0].at == NOW - 10
    assert open_request(bview(conversation=heard((OPEN, NOW - 30)))) is None  # window over


def test_the_rate_of_a_remembered_rule_when_the_request_names_none() -> None:
    wm = WorkingMemory(items=(WorkingMemoryItem(text=f"Announcement from Council: {RULE}"),))
    v = bview(
        conversation=heard(("Tax season 2 is open: deposit into the community chests.", NOW - 1)),
        working_memory=wm,
        perception=Perception(observation=Observation(inventory={"wheat": 10})),
    )
    due = deposit_due(v)
    assert due is not None and due[1] == 3


def test_the_chest_from_its_own_location_memory_nearest_first() -> None:
    ident = Identity(
        name="Ann",
        location_memories=(
            "The village's community chests are in the town hall at (0, 64, 0) and (30, 64, 0).",
        ),
    )
    v = bview(
        identity=ident,
        conversation=heard((OPEN, NOW - 1)),
        perception=Perception(
            observation=Observation(position=Vec3(x=28, y=64, z=1), inventory={"bread": 10})
        ),
    )
    due = deposit_due(v)
    assert due is not None and due[2] == (30, 64, 0)


def _owed(opinions: dict[str, float], topics: bool) -> int:
    ident = Identity(name="Ann", topics=(topic("tax"),) if topics else ())
    v = bview(
        identity=ident,
        conversation=heard((OPEN, NOW - 1)),
        social=Social(opinions=opinions),
        perception=Perception(observation=Observation(inventory={"wheat": 20})),
    )
    due = deposit_due(v)
    assert due is not None
    return due[1]


def test_the_opinion_on_the_topic_the_request_is_about() -> None:
    """Its opinion on the topic its village handed it, which the request mentions, scales
    the share; without the topic (a plain village) no opinion enters."""
    assert _owed({"tax": -1.0}, topics=True) == 1 < _owed({"tax": 0.0}, topics=True) == 4
    assert _owed({"tax": 1.0}, topics=True) == 7
    assert _owed({"tax": -1.0}, topics=False) == 4


def test_a_close_in_a_topics_words_is_read_with_the_topic() -> None:
    """ "Tax season 2 is closed." asks nothing in plain English: it closes the open request
    only for an agent whose village talks about the tax (its request words)."""
    closed = heard((OPEN, NOW - 5), ("Tax season 2 is closed.", NOW - 1))
    with_tax = Identity(name="Ann", topics=(topic("tax"),))
    assert open_request(bview(identity=with_tax, conversation=closed)) is None
    assert open_request(bview(conversation=closed)) is not None


def test_share_moves_with_opinion_and_stays_a_share() -> None:
    assert share_of(0.2, 0.0) == pytest.approx(0.2)
    assert share_of(0.2, -1.0) < share_of(0.2, 0.0) < share_of(0.2, 1.0)
    assert share_of(0.9, 1.0) == 1.0


def test_nothing_is_due_without_a_request() -> None:
    v = bview(
        perception=Perception(observation=Observation(inventory={"bread": 10})), social=Social()
    )
    assert deposit_due(v) is None


def test_a_failed_deposit_is_tried_once_more_at_another_chest() -> None:
    from agent_runtime.state.sections import Action, ActionLogEntry
    from agent_runtime.world import SkillCall, SkillOutcome

    text = (
        "Tax season 2 is open for 20 seconds: deposit 50% of your inventory into the "
        "community chests at (0, 64, 0) and (9, 64, 0)."
    )
    call = SkillCall(
        skill="deposit", args={"item": "bread", "count": 5, "x": 0.0, "y": 64.0, "z": 0.0}
    )
    failed = ActionLogEntry(
        decision_id="d",
        call=call,
        outcome=SkillOutcome(skill="deposit", success=False, reason="no path to the chest"),
        started_at=NOW - 2,
    )
    per = Perception(
        observation=Observation(position=Vec3(x=1, y=64, z=0), inventory={"bread": 10})
    )
    once = bview(conversation=heard((text, NOW - 5)), perception=per, action=Action(log=(failed,)))
    due = deposit_due(once)
    assert due is not None and due[0] == "bread" and due[2] == (9, 64, 0)
    twice = bview(
        conversation=heard((text, NOW - 5)), perception=per, action=Action(log=(failed, failed))
    )
    assert deposit_due(twice) is None


def test_a_small_share_of_many_small_stacks_is_not_rounded_away() -> None:
    from modules.heuristics.deposit import quotas_of

    inv = {"oak_log": 9, "dirt": 8, "stick": 7, "cobblestone": 6}  # 30 items
    q = quotas_of(inv, 0.05)  # per kind every share is below one item
    assert sum(q.values()) == 2  # round(0.05 * 30) = 2 items in all
    assert q["oak_log"] == 1 and q["dirt"] == 1  # the largest remainders
    assert sum(quotas_of(inv, 0.2).values()) == 6
    assert quotas_of({"bread": 3}, 0.0) == {"bread": 0}
    assert quotas_of({}, 0.5) == {}
