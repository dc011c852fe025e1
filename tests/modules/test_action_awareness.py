"""Action awareness: expected vs observed outcome, discrepancies written for the controller."""

from __future__ import annotations

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.bus import topics
from agent_runtime.bus.messages import SkillEvent
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Awareness
from agent_runtime.world import SkillCall, SkillOutcome
from modules.action_awareness import ActionAwareness, compare


def test_families_count_any_member() -> None:
    assert compare({"log": 3}, {"birch_log": 2, "oak_log": 1}) == {}
    assert compare({"log": 3}, {"birch_log": 1}) == {"log": (3, 1)}


async def test_action_awareness_reports_a_failed_craft() -> None:
    async with local_services() as svc:
        aa = ActionAwareness(Schedule(cadence=None, triggers=frozenset({"topic:skill"})))
        ctx = module_context(svc, aa, agent="Ann")
        call = SkillCall(skill="craft", args={"item": "wooden_pickaxe", "count": 1})
        topic = topics.agent(svc.run_id, "Ann", "skill")
        await svc.bus.publish(topic, SkillEvent(event="started", decision="d1", call=call))
        await aa.step(ctx)
        assert svc.store.agent("Ann").get("awareness", Awareness).expected == {"wooden_pickaxe": 1}
        out = SkillOutcome(skill="craft", success=False, reason="missing ingredients: 2 stick")
        finished = SkillEvent(event="finished", decision="d1", call=call, outcome=out)
        await svc.bus.publish(topic, finished)
        await aa.step(ctx)
        aw = svc.store.agent("Ann").get("awareness", Awareness)
        note = aw.discrepancies[-1].note
        assert (
            "expected +1 wooden_pickaxe, observed +0" in note
            and "missing ingredients: 2 stick" in note
        )
        assert any("wooden_pickaxe" in m.text for m in ctx.memory)
        good = SkillOutcome(skill="craft", success=True, inventory_delta={"wooden_pickaxe": 1})
        await svc.bus.publish(
            topic, finished.model_copy(update={"decision": "d2", "outcome": good})
        )
        await aa.step(ctx)
        assert len(svc.store.agent("Ann").get("awareness", Awareness).discrepancies) == 1
