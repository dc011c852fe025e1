"""Skill execution: a decision's skill runs on the body and lands in the action log."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Action, Decision, IntentKind, Perception
from agent_runtime.world import SKILL_TIMEOUTS, WALK_BLOCKS_PER_S, Observation, SkillCall, Vec3
from modules.skill_execution import SkillExecution, walk_allowance


async def test_a_decision_runs_its_skill_and_is_logged() -> None:
    async with local_services() as svc:
        body = RecordingBody("Ann")
        se = SkillExecution(Schedule(cadence=None, triggers=frozenset({"topic:decision"})))
        ctx = module_context(svc, se, agent="Ann", body=body)
        call = SkillCall(skill="collect", args={"block": "log", "count": 2})
        d = Decision(id="d1", kind=IntentKind.WORK, skill=call)
        await svc.bus.publish(topics.agent(svc.run_id, "Ann", "decision"), d)
        await se.step(ctx)
        assert body.calls == [call]
        action = svc.store.agent("Ann").get("action", Action)
        assert action.running is None and action.completed == 1
        assert action.log[-1].decision_id == "d1" and action.log[-1].started_at > 0


async def test_a_far_chest_gets_time_for_the_walk_there() -> None:
    """The tax run's 151 deposits that timed out walking to the chest: a deposit whose chest
    lies 90 blocks from where the body last was gets the skill's limit plus the walk at the
    measured pace (the body's limit too: it is sent with the call); a near one keeps 30 s."""
    async with local_services() as svc:
        body = RecordingBody("Ann")
        se = SkillExecution(Schedule(cadence=None, triggers=frozenset({"topic:decision"})))
        ctx = module_context(svc, se, agent="Ann", body=body)
        here = Perception(observation=Observation(position=Vec3(x=0, y=64, z=0)))
        svc.store.agent("Ann").set("perception", here, writer="perception")
        far = SkillCall(skill="deposit", args={"item": "wheat", "x": 90.0, "y": 64.0, "z": 0.0})
        near = SkillCall(skill="deposit", args={"item": "wheat", "x": 3.0, "y": 64.0, "z": 0.0})
        for i, call in enumerate((far, near)):
            d = Decision(id=f"d{i}", kind=IntentKind.WORK, skill=call)
            await svc.bus.publish(topics.agent(svc.run_id, "Ann", "decision"), d)
            await se.step(ctx)
        sent_far, sent_near = body.calls
        assert sent_far.args == far.args and sent_far.timeout is not None
        assert sent_far.timeout == SKILL_TIMEOUTS["deposit"] + 90.0 / WALK_BLOCKS_PER_S
        assert sent_near.timeout == SKILL_TIMEOUTS["deposit"] + 3.0 / WALK_BLOCKS_PER_S
        action = svc.store.agent("Ann").get("action", Action)
        assert [e.call for e in action.log] == [far, near]  # the decision's call, as decided


def test_walk_allowance_only_for_a_target_position() -> None:
    here = Vec3(x=0, y=64, z=0)
    assert walk_allowance(SkillCall(skill="go_to", args={"x": 45.0, "z": 0.0}), here) == 20.0
    assert walk_allowance(SkillCall(skill="deposit", args={"item": "wheat"}), here) == 0.0
    assert walk_allowance(SkillCall(skill="collect", args={"block": "log"}), here) == 0.0
    own = SkillCall(skill="go_to", args={"x": 45.0, "z": 0.0}, timeout=5.0)
    assert walk_allowance(own, here) == 0.0
    assert walk_allowance(SkillCall(skill="go_to", args={"x": 45.0, "z": 0.0}), None) == 0.0
