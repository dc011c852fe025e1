"""Commitment: a running skill is replaced only for a perceived reason (any policy, LLM too);
a goal change waits for the step to end; an urgent request preempts the running skill, which
is resumed afterwards with what remains of it (or abandoned, which counts as cancelled); an
idle wait ended by a perceived reason is reported as ``idle_ended``."""

from __future__ import annotations

from typing import Any

from agent_runtime.app.metrics import Cancellations
from agent_runtime.app.testing import local_services, module_context
from agent_runtime.clock import wall_time
from agent_runtime.module import Schedule
from agent_runtime.state.sections import (
    Action,
    ActionLogEntry,
    Conversation,
    Decision,
    Goals,
    Identity,
    IntentKind,
    Perception,
    Utterance,
)
from agent_runtime.world import Observation, SkillCall, SkillOutcome
from modules.controller.commitment import (
    ABANDON_AFTER_S,
    MAX_PREEMPTED,
    Ledger,
    replacement_reason,
    resume_call,
    verdict,
)
from modules.controller.module import CognitiveController
from modules.skill_execution import SkillExecution
from tests.modules.helpers import NOW, bview

RUNNING = SkillCall(skill="collect", args={"block": "log", "count": 4})
OTHER = SkillCall(skill="explore", args={"distance": 48})
DEPOSIT = SkillCall(skill="deposit", args={"item": "log", "count": 1})
ACT = Action(running=RUNNING, started_at=NOW - 10)
OPEN = (
    "Tax season 3 is open for 20 seconds: deposit 20% of your inventory into the community "
    "chests at (12, 64, -3) and (14, 64, -3)."
)


def _news(at: float = NOW - 1) -> Conversation:
    return Conversation(lines=(Utterance(speaker="Mayor", text=OPEN, at=at),))


def test_no_reason_keeps_the_running_skill() -> None:
    assert replacement_reason(bview(action=ACT, goals=Goals(set_at=NOW - 50)), OTHER) is None
    assert replacement_reason(bview(action=ACT), RUNNING) is None
    assert replacement_reason(bview(), OTHER) is None  # nothing running: nothing to cancel


def test_a_goal_change_does_not_abort_the_running_step() -> None:
    changed = bview(action=ACT, goals=Goals(current="mine", kind="mine", set_at=NOW - 1))
    assert replacement_reason(changed, OTHER) is None


def test_perceived_reasons() -> None:
    asked = Conversation(
        lines=(Utterance(speaker="Bob", text="Ann, bread?", to="Ann", at=NOW - 1),)
    )
    give = SkillCall(skill="give", args={"player": "Bob", "item": "bread", "count": 1})
    assert replacement_reason(bview(action=ACT, conversation=asked), give) == "request"
    assert replacement_reason(bview(action=ACT, conversation=asked), OTHER) is None
    hurt = Perception(observation=Observation(health=3))
    assert replacement_reason(bview(action=ACT, perception=hurt), OTHER) == "danger"
    # danger warrants only what answers it: a hungry agent does not drop its work for more work
    assert replacement_reason(bview(action=ACT, perception=hurt), DEPOSIT) is None
    news = _news(NOW - 11)
    assert replacement_reason(bview(action=ACT, conversation=news), DEPOSIT) == "deposit_request"
    assert replacement_reason(bview(action=ACT, conversation=news), OTHER) is None
    old = Action(running=RUNNING, started_at=NOW - 1000)
    assert replacement_reason(bview(action=old), OTHER) == "stale"
    # a skill held aside (or on its way) is judged like a running one
    assert replacement_reason(bview(conversation=news), DEPOSIT, RUNNING, NOW - 5) == (
        "deposit_request"
    )


def test_a_running_deposit_is_interrupted_only_by_danger() -> None:
    paying = Action(running=DEPOSIT, started_at=NOW - 3)
    other = SkillCall(skill="deposit", args={"item": "bread", "count": 1})
    assert replacement_reason(bview(action=paying, goals=Goals(set_at=NOW - 1)), other) is None
    hurt = Perception(observation=Observation(health=3))
    eat = SkillCall(skill="eat", args={"item": "bread"})
    assert replacement_reason(bview(action=paying, perception=hurt), eat) == "danger"
    assert replacement_reason(bview(action=paying, perception=hurt), OTHER) == "danger"


def test_verdicts() -> None:
    assert verdict(RUNNING, "deposit_request") == "preempt"
    assert verdict(RUNNING, "request") == "preempt"
    assert verdict(RUNNING, "stale") == "cancel"
    assert verdict(SkillCall(skill="idle", args={"seconds": 10}), "deposit_request") == "end_wait"


def test_what_remains_of_a_preempted_skill() -> None:
    assert resume_call(RUNNING, {"birch_log": 1, "dirt": 2}) == RUNNING.model_copy(
        update={"args": {"block": "log", "count": 3}}
    )
    assert resume_call(RUNNING, {}) == RUNNING
    assert resume_call(RUNNING, {"oak_log": 4}) is None  # done before it was stopped
    assert resume_call(OTHER, {"dirt": 1}) == OTHER  # no count: resumed as it was
    # count = items, made in whole crafts of 4 sticks (bots/body/skills/craft.js)
    craft = SkillCall(skill="craft", args={"item": "stick", "count": 12})
    assert resume_call(craft, {"stick": 4, "oak_planks": -2}) == craft.model_copy(
        update={"args": {"item": "stick", "count": 8}}
    )
    assert resume_call(craft, {"stick": 12}) is None
    three = SkillCall(skill="craft", args={"item": "stick", "count": 3})  # one craft: 4 sticks
    assert resume_call(three, {"stick": 4}) is None


def _ledger_events() -> tuple[Ledger, list[tuple[str, dict[str, Any]]]]:
    seen: list[tuple[str, dict[str, Any]]] = []
    return Ledger(), seen


def test_a_preempted_collect_is_resumed_with_what_remains() -> None:
    ledger, seen = _ledger_events()

    def emit(kind: str, **fields: Any) -> None:
        seen.append((kind, fields))

    news = _news()
    assert ledger.replace(bview(conversation=news), RUNNING, NOW - 10, DEPOSIT, "d2", emit)
    assert [k for k, _ in seen] == ["skill_preempted"] and len(ledger.held) == 1
    # the collect got 1 log before it was stopped; the deposit ran
    log = (
        ActionLogEntry(
            decision_id="d1",
            call=RUNNING,
            started_at=NOW - 10,
            outcome=SkillOutcome(
                skill="collect", success=False, cancelled=True, inventory_delta={"oak_log": 1}
            ),
        ),
        ActionLogEntry(
            decision_id="d2",
            call=DEPOSIT,
            started_at=NOW - 3,
            outcome=SkillOutcome(skill="deposit", success=True, inventory_delta={"oak_log": -1}),
        ),
    )
    after = bview(conversation=news, action=Action(log=log))
    # another deposit still owed goes first; the collect stays held
    more = SkillCall(skill="deposit", args={"item": "dirt", "count": 1})
    assert ledger.resume(after, more, emit) is None and len(ledger.held) == 1
    # then the next ordinary step gives way to what remains of the collect
    got = ledger.resume(after, OTHER, emit)
    assert got is not None and got[0].args == {"block": "log", "count": 3}
    assert not ledger.held and seen[-1][0] == "skill_resumed"
    assert ledger.counts == {"preempted": {"deposit_request": 1}, "resumed": {"deposit_request": 1}}


def test_a_preempted_skill_not_resumed_in_time_is_abandoned_and_counted_cancelled() -> None:
    ledger, seen = _ledger_events()

    def emit(kind: str, **fields: Any) -> None:
        seen.append((kind, fields))

    ledger.replace(bview(conversation=_news()), RUNNING, NOW - 10, DEPOSIT, "d2", emit)
    late = bview(now=NOW + ABANDON_AFTER_S + 1)
    assert ledger.resume(late, OTHER, emit) is None and not ledger.held
    assert seen[-1][0] == "decision_cancelled" and seen[-1][1]["reason"] == "abandoned"
    assert ledger.counts["cancelled"] == {"abandoned": 1}
    # a full stack abandons its oldest
    for i in range(MAX_PREEMPTED + 1):
        call = SkillCall(skill="collect", args={"block": "log", "count": i + 1})
        ledger.replace(bview(conversation=_news()), call, NOW - 10, DEPOSIT, f"p{i}", emit)
    assert len(ledger.held) == MAX_PREEMPTED and ledger.counts["cancelled"]["abandoned"] == 2


def test_an_idle_wait_ended_by_a_request_is_not_a_cancellation() -> None:
    ledger, seen = _ledger_events()

    def emit(kind: str, **fields: Any) -> None:
        seen.append((kind, fields))

    idle = SkillCall(skill="idle", args={"seconds": 30})
    assert ledger.replace(bview(conversation=_news()), idle, NOW - 5, DEPOSIT, "d2", emit)
    assert [k for k, _ in seen] == ["idle_ended"] and not ledger.held
    assert "cancelled" not in ledger.counts
    # ... but a goal change does not end it either
    changed = bview(goals=Goals(set_at=NOW - 1))
    assert not ledger.replace(changed, idle, NOW - 5, OTHER, "d3", emit)


def test_metrics_report_each_outcome_separately() -> None:
    c = Cancellations()
    for kind, reason in [
        ("skill_preempted", "deposit_request"),
        ("skill_resumed", None),
        ("idle_ended", "request"),
        ("decision_cancelled", "abandoned"),
        ("decision_cancelled", "stale"),
        ("decision", None),
    ]:
        rec: dict[str, Any] = {"type": kind, "agent": "Ann", "running": {"skill": "collect"}}
        if reason:
            rec["reason"] = reason
        else:
            rec["preempted_for"] = "deposit_request"
        c(rec)
    s = c.summary(agents=1, wall_s=3600.0)
    assert s["total"] == 2 and s["by_reason"] == {"abandoned": 1, "stale": 1}
    assert s["by_skill"] == {"collect": 2}
    assert s["preempted"] == {"deposit_request": 1} and s["resumed"] == {"deposit_request": 1}
    assert s["idle_ended"] == {"request": 1} and s["idle_ended_per_agent_hour"] == 1.0


# --- the controller keeps its word ----------------------------------------------------------


async def _controller(svc: Any, **sections: Any) -> tuple[CognitiveController, Any, list[Any]]:
    st = svc.store.agent("Ann")
    st.set("identity", Identity(name="Ann"), writer="runtime")
    owners = {"perception": "perception", "action": "skill_execution",
              "conversation": "talking", "goals": "goal_generation"}  # fmt: skip
    for name, value in sections.items():
        st.set(name, value, writer=owners[name])
    seen: list[dict[str, Any]] = []
    svc.events.add_listener(seen.append)
    cc = CognitiveController(Schedule(cadence=3.0))
    return cc, module_context(svc, cc, agent="Ann"), seen


async def test_a_goal_change_does_not_abort_a_running_collect() -> None:
    now = wall_time()
    async with local_services() as svc:
        cc, ctx, seen = await _controller(
            svc,
            perception=Perception(observation=Observation(inventory={"oak_log": 2})),
            action=Action(running=RUNNING, started_at=now - 5),
            goals=Goals(current="mine stone", kind="mine", set_at=now - 1),
        )
        view = cc.view(ctx)
        new = Decision(id="n", kind=IntentKind.WORK, skill=OTHER, updated_at=view.now)
        kept = cc.ledger.commit(view, new, Decision(), ctx.emit)
        assert kept is None  # nothing to publish: the collect goes on
        await cc.step(ctx)  # the heuristic, after the goal change, keeps the collect too
        decided = [e for e in seen if e["type"] == "decision"]
        assert all(e["skill"] is None for e in decided)
        assert not [e for e in seen if e["type"] in ("decision_cancelled", "skill_preempted")]


async def test_a_collect_preempted_by_a_deposit_request_is_resumed_after_it() -> None:
    now = wall_time()
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        cc, ctx, seen = await _controller(
            svc,
            perception=Perception(observation=Observation(inventory={"oak_log": 10})),
            action=Action(running=RUNNING, started_at=now - 5),
            conversation=_news(now - 1),
        )
        await cc.step(ctx)
        d = st.get("decision", Decision)
        assert d.skill is not None and d.skill.skill == "deposit"
        assert [e["type"] for e in seen if "preempt" in e["type"] or "cancel" in e["type"]] == [
            "skill_preempted"
        ]
        # the body stopped the collect (1 log in) and carried out the deposit
        cut = SkillOutcome(skill="collect", success=False, cancelled=True,
                           inventory_delta={"oak_log": 1})  # fmt: skip
        paid = SkillOutcome(skill="deposit", success=True, inventory_delta={"oak_log": -2})
        log = (
            ActionLogEntry(decision_id="c", call=RUNNING, started_at=now - 5, outcome=cut),
            ActionLogEntry(decision_id=d.id, call=d.skill, started_at=now, outcome=paid),
        )
        st.set("action", Action(log=log, started_at=now + 0.5), writer="skill_execution")
        inv = Perception(observation=Observation(inventory={"oak_log": 9}))
        st.set("perception", inv, writer="perception")
        await cc.step(ctx)
        d2 = st.get("decision", Decision)
        assert d2.skill == SkillCall(skill="collect", args={"block": "log", "count": 3})
        assert [e["type"] for e in seen][-2:] == ["skill_resumed", "decision"]
        assert cc.cancelled == {}


def test_a_later_decision_that_only_speaks_does_not_drop_a_skill() -> None:
    work = Decision(id="a", skill=RUNNING)
    talk = Decision(id="b", kind=IntentKind.TALK)
    msgs = [work, talk]
    got = SkillExecution._latest(msgs)
    assert got is not None and got.id == "a"
    only_talk = SkillExecution._latest(msgs[1:])
    assert only_talk is not None and only_talk.id == "b"


def test_a_preempted_skill_that_had_done_its_work_is_not_resumed() -> None:
    ledger, seen = _ledger_events()

    def emit(kind: str, **fields: Any) -> None:
        seen.append((kind, fields))

    ledger.replace(bview(conversation=_news()), RUNNING, NOW - 10, DEPOSIT, "d2", emit)
    full = SkillOutcome(skill="collect", success=False, inventory_delta={"oak_log": 4})
    log = (ActionLogEntry(decision_id="d1", call=RUNNING, started_at=NOW - 10, outcome=full),)
    assert ledger.resume(bview(action=Action(log=log)), OTHER, emit) is None
    assert seen[-1] == (
        "preempted_done",
        {"running": RUNNING.model_dump(mode="json"), "delta": {"oak_log": 4},
         "preempted_by": "d2", "preempted_for": "deposit_request"},
    )  # fmt: skip
    assert ledger.counts["done_before_resume"] == {"deposit_request": 1} and not ledger.held
