"""Skill execution: a decision's skill runs on the body and lands in the action log."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.body.recording import RecordingBody
from agent_runtime.bus import topics
from agent_runtime.interfaces import Schedule
from agent_runtime.state.sections import Action, Decision, IntentKind
from agent_runtime.world import SkillCall
from modules.skill_execution import SkillExecution


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
