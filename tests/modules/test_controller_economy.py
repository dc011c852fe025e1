"""The controller's model bill (issue 30, part J): a standing decision keeps the course at
the ceiling for a minute after the model's last call (run I1: at 30 s, all 32 ceiling-only
calls answered "continue")."""

from __future__ import annotations

from agent_runtime.config.module_options import STANDING_ASK_S
from agent_runtime.state.sections import Decision, IntentKind
from tests.modules.test_standing_decision import ceiling_passes_while_chopping, standing


async def test_a_standing_decision_answers_the_ceiling_for_a_minute() -> None:
    """45 s after the model's last call, only the ceiling passed while the standing
    decision's skill runs: it keeps the course without a call; past 60 s the model is asked."""
    assert STANDING_ASK_S == 60.0
    async with standing(follow_plan_steps=3) as (cc, ctx, model, st, seen):
        await cc.step(ctx)  # chop oaks, standing
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.last is not None
        ceiling_passes_while_chopping(cc, st)
        cc._asked_at -= 45.0  # the model was last asked 45 s ago
        await cc.step(ctx)
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and cc.gate.kept == 1
        assert d.brain == "llm:m+plan" and d.kind is IntentKind.CONTINUE
        cc.gate.last = cc.gate.last.model_copy(update={"at": 0.0})
        cc._asked_at -= 16.0  # 61 s
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.gate.asked.get("ceiling") == 1
        asked = [e for e in seen if e["type"] == "controller_asked"]
        assert asked[-1]["not_followed"] == "ceiling, model not asked for long"
