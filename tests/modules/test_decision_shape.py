"""A decision keeps one shape from the controller to the body: the heuristic's ControllerOut
goes straight to the Decision, skill execution and talking get that Decision object, and a
skill's arguments are validated once, where the call is made."""

from __future__ import annotations

import pytest

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Decision, IntentKind
from agent_runtime.world import SkillCall, SkillOutcome, validate_skill
from modules.controller.decisions import ControllerChoice, ControllerOut, to_decision
from modules.controller.module import CognitiveController
from modules.skill_execution import SkillExecution
from tests.modules.helpers import agent_state


class CountingBody(RecordingBody):
    """Runs every call as the real body does first: through ``validate_skill``."""

    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        return await super().run_skill(validate_skill(call))


def count_validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    typed_args = SkillCall.typed_args

    def counted(call: SkillCall) -> object:
        seen.append(call.skill)
        return typed_args(call)

    monkeypatch.setattr(SkillCall, "typed_args", counted)
    return seen


async def test_a_decisions_call_is_validated_once_on_its_way_to_the_body(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The controller validates the call in ``to_decision``; skill execution gets the same
    Decision object over the bus and sends its call (with the walk's timeout) to a body that
    validates what it gets: nothing is validated a second time."""
    seen = count_validations(monkeypatch)
    out = ControllerOut(kind=IntentKind.WORK, skill="collect", args={"block": "log"})
    decision = to_decision(out, "heuristic", Decision(), 1.0)
    assert decision is not None and decision.skill is not None and seen == ["collect"]
    async with local_services() as svc:
        body = CountingBody("Ann")
        se = SkillExecution(Schedule(cadence=None, triggers=frozenset({"topic:decision"})))
        ctx = module_context(svc, se, agent="Ann", body=body)
        got = svc.bus.subscribe(topics.agent(svc.run_id, "Ann", "decision"))
        await svc.bus.publish(topics.agent(svc.run_id, "Ann", "decision"), decision)
        msg = got.get_nowait()
        assert msg is not None and msg.payload is decision  # the object, not a copy
        await se.step(ctx)
    assert body.calls == [decision.skill] and seen == ["collect"]
    # a call changed after its check, or one from the wire, is checked where it enters
    more = decision.skill.model_copy(update={"args": {**decision.skill.args, "count": 3}})
    wire = Decision.model_validate_json(decision.model_dump_json()).skill
    assert wire is not None and not wire.checked and not more.checked
    validate_skill(more)
    validate_skill(wire)
    assert seen == ["collect"] * 3


def test_the_checked_mark_costs_no_other_call() -> None:
    """The mark of a validated call is the type of its arguments, not a private attribute:
    pydantic initialises private attributes in Python on every construction and validation,
    which made each SkillCall twice as slow to build (the planners build dozens a step)."""
    assert SkillCall.__private_attributes__ == {}
    call = validate_skill(SkillCall(skill="collect", args={"block": "log"}))
    assert call.checked and call.model_copy(update={"timeout": 5.0}).checked
    assert not SkillCall(skill="collect", args=dict(call.args)).checked


async def test_the_heuristic_decides_without_a_model_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the heuristic brain the controller applies the heuristic's ControllerOut as it
    is: no ControllerChoice is made from it (to be turned back into a ControllerOut)."""

    def never(out: ControllerOut) -> ControllerChoice:
        raise AssertionError("the heuristic's output was wrapped into a ControllerChoice")

    monkeypatch.setattr(ControllerChoice, "of", never)
    async with local_services() as svc:
        st = agent_state(svc)
        cc = CognitiveController(Schedule(cadence=3.0))
        ctx = module_context(svc, cc, agent="Ann")
        await cc.step(ctx)
        decision = st.get("decision", Decision)
    assert decision.id and decision.brain == "heuristic"
