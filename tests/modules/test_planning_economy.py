"""Fewer planning and goal calls with a model (issue 30, part I): a goal change re-plans only
the steps from now, the steps cover at least an hour from now, and goal generation's ceiling
asks only when nothing a goal depends on changed for ``MAX_INTERVAL_S``."""

from __future__ import annotations

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.module import Schedule
from agent_runtime.state.sections import Conversation, Goals, Identity, Plan, Utterance
from modules.heuristics.goals import GoalOut
from modules.heuristics.planning import PlanOut, PlanStepOut
from modules.plan_fit import chunk_end
from tests.modules.planning_helpers import HOUR_S, T0, StepClock, close, planner, seeing

STEPS = PlanOut(
    steps=[
        PlanStepOut(
            text=f"chop {i}", skill="collect", args={"block": "oak_log", "count": 2}, minutes=10
        )
        for i in range(8)
    ]
)


async def test_with_a_model_a_goal_change_re_plans_only_the_steps_from_now() -> None:
    st, ctx, clock, pl = await planner(perception=seeing("oak_log", "stone"))
    try:
        model = ScriptedLanguageModel(responder=lambda r: STEPS)
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)  # the day, its first chunk, the steps
        assert len(model.calls) == 3
        before = st.get("plan", Plan)
        clock.t += 0.1 * HOUR_S
        st.set("goals", Goals(current="mine stone", kind="mine"), writer="goal_generation")
        await pl.step(ctx)
        after = st.get("plan", Plan)
        assert len(model.calls) == 4 and pl.goal_replans == 1  # one call, not three
        assert after.goal == "mine stone" and after.revised_for.startswith("goal")
        assert after.day == before.day and after.hours == before.hours  # the outline kept
        assert after.steps[0].start == 0.1 and after.steps != before.steps
        prompt = "\n".join(m.content for m in model.calls[-1].messages)
        assert "Current goal: mine stone" in prompt and "goal changed" in prompt
    finally:
        await close(ctx)


async def test_with_a_model_a_late_re_plan_makes_steps_for_an_hour_from_now() -> None:
    """A re-plan 6 game minutes before the hour chunk's end was given 15 game minutes (two
    steps, then a call for the next hour); now it plans an hour of steps."""
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        model = ScriptedLanguageModel(responder=lambda r: STEPS)
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)
        p = st.get("plan", Plan)
        late = chunk_end(p.hours[p.hour_current]) - 0.1
        pl.replan_min_s = 0.0  # not deferred (another rule)
        clock.t = T0 + late * HOUR_S
        ask = Utterance(speaker="Bob", text="Ann, please give me wood", to="Ann", at=clock.t)
        st.set("conversation", Conversation(lines=(ask,)), writer="talking")
        await pl.step(ctx)
        assert len(model.calls) == 4
        prompt = "\n".join(m.content for m in model.calls[-1].messages)
        assert "(60 game minutes)" in prompt
        steps = st.get("plan", Plan).steps
        assert len(steps) >= 5 and steps[0].start == late
    finally:
        await close(ctx)


async def test_goal_generation_asks_at_its_ceiling_only_after_max_interval_s() -> None:
    """Nothing a goal depends on changed: no call 60 s on (the old ceiling), one at 300 s."""
    from agent_runtime.config.module_options import GOAL_MAX_INTERVAL_S as MAX_INTERVAL_S
    from modules.goal_generation import GoalGeneration

    model = ScriptedLanguageModel(
        responder=lambda r: GoalOut(goal="gather wood", kind="gather_wood", reason="wood"),
        name="m",
    )
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You are kind.",)), writer="runtime")
        st.set("perception", seeing("oak_log"), writer="perception")
        gg = GoalGeneration(Schedule(cadence=5.0))
        ctx = module_context(svc, gg, agent="Ann")
        clock = StepClock()
        ctx.clock = clock
        ctx.brain = Brain(model, module="goal_generation", agent="Ann")
        await gg.step(ctx)
        assert len(model.calls) == 1
        for _ in range(5):  # 5 x 61 s would each have been a call at a 60 s ceiling
            clock.t += 55.0
            await gg.step(ctx)
        assert len(model.calls) == 1 and clock.t - T0 < MAX_INTERVAL_S
        clock.t = T0 + MAX_INTERVAL_S
        await gg.step(ctx)
        assert len(model.calls) == 2
