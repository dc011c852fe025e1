"""Planning with a model (issue 30): every level through its prompt, compact answers, steps
re-planned at most every ``replan_min_s``, a first failure left to the controller, the steps
left at an hour's end finished first."""

from __future__ import annotations

from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.state.sections import (
    Action,
    ActionLogEntry,
    Conversation,
    Identity,
    Plan,
    Utterance,
)
from agent_runtime.world import SkillCall, SkillOutcome
from modules.heuristics.planning import PlanOut, PlanStepOut
from modules.plan_answers import ChunksOut, StepsOut
from tests.modules.planning_helpers import HOUR_S, T0, close, planner, seeing


async def test_the_llm_plans_every_level_through_its_prompts() -> None:
    day = PlanOut(
        steps=[PlanStepOut(text=f"chunk {i}", minutes=120, kind="gather_wood") for i in range(6)]
    )
    hours = PlanOut(steps=[PlanStepOut(text="fell the oaks by the river", minutes=60)])
    steps = PlanOut(
        steps=[
            PlanStepOut(
                text="chop oaks", skill="collect", args={"block": "oak_log", "count": 3}, minutes=12
            ),
            PlanStepOut(text="make planks", skill="craft", args={"item": "oak_planks"}, minutes=5),
        ]
    )
    st, ctx, clock, pl = await planner(
        perception=seeing("oak_log"), identity=Identity(name="Ann", traits=("You are shy.",))
    )
    try:
        model = ScriptedLanguageModel([day, hours, steps])
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.brain == "llm:scripted" and len(p.day) == 6 and p.hours[0].text.startswith("fell")
        assert [s.text for s in p.steps] == ["chop oaks", "make planks"]
        assert [s.minutes for s in p.steps] == [12.0, 5.0] and p.steps[1].start == 0.2
        prompts = ["\n".join(m.content for m in c.messages) for c in model.calls]
        assert len(prompts) == 3
        assert "broad strokes" in prompts[0] and "You are shy." in prompts[0]
        assert "day 1, 06:00" in prompts[0] and "day 2, 06:00" in prompts[0]
        assert "hour-long chunks" in prompts[1] and "chunk 0" in prompts[1]
        assert "5 to 15" in prompts[2] and "fell the oaks by the river" in prompts[2]
        # a request heard: the steps prompt carries it quoted, with the reason
        model.push(steps)
        clock.t += 0.2 * HOUR_S
        ask = Utterance(speaker="Bob", text="Ann, please give me wood", to="Ann", at=clock.t)
        st.set("conversation", Conversation(lines=(ask,)), writer="talking")
        await pl.step(ctx)
        last = "\n".join(m.content for m in model.calls[-1].messages)
        assert '"Ann, please give me wood"' in last and "request: someone asked" in last
    finally:
        await close(ctx)


async def test_with_a_model_the_steps_are_re_planned_at_most_every_replan_min_s() -> None:
    """Issue 30: a conflict within ``replan_min_s`` of the last re-plan waits (the plan is
    kept; the controller answers the failure or request), then is re-planned."""
    steps = PlanOut(
        steps=[PlanStepOut(text="chop", skill="collect", args={"block": "oak_log"}, minutes=10)]
    )
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        model = ScriptedLanguageModel(responder=lambda r: steps)
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)  # the day, its first chunk, the steps
        made = len(model.calls)
        clock.t += 0.2 * HOUR_S
        ask = Utterance(speaker="Bob", text="Ann, please give me wood", to="Ann", at=clock.t)
        st.set("conversation", Conversation(lines=(ask,)), writer="talking")
        await pl.step(ctx)  # the first re-plan: at once
        assert len(model.calls) == made + 1
        clock.t += 10.0  # 10 s later, another request: within 30 s, it waits
        again = Utterance(speaker="Cleo", text="Ann, give me wood too", to="Ann", at=clock.t)
        st.set("conversation", Conversation(lines=(ask, again)), writer="talking")
        await pl.step(ctx)
        assert len(model.calls) == made + 1 and pl.deferred == 1
        clock.t += 25.0  # 35 s after the last re-plan: now
        await pl.step(ctx)
        assert len(model.calls) == made + 2
    finally:
        await close(ctx)


async def test_with_a_model_a_first_failure_is_left_to_the_controller() -> None:
    """Issue 30: with a model, one failure since the last revision does not re-plan (the
    controller, asked on it, recovers); a second one does. The heuristic re-plans at once
    (test_a_failure_re_plans_starting_with_the_reaction)."""
    steps = PlanOut(
        steps=[PlanStepOut(text="chop", skill="collect", args={"block": "oak_log"}, minutes=10)]
    )
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        model = ScriptedLanguageModel(responder=lambda r: steps)
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)  # the day, its first chunk, the steps
        made = len(model.calls)
        call = st.get("plan", Plan).steps[0].skill
        assert call is not None

        def failed(n: int) -> Action:
            out = [
                SkillOutcome(skill="collect", success=False, reason="no", ended_at=clock.t + i)
                for i in range(n)
            ]
            entries = (
                ActionLogEntry(decision_id=f"d{i}", call=call, outcome=o) for i, o in enumerate(out)
            )
            return Action(log=tuple(entries))

        clock.t += 0.2 * HOUR_S
        st.set("action", failed(1), writer="skill_execution")
        await pl.step(ctx)
        assert len(model.calls) == made and pl.left_to_controller == 1
        clock.t += 60.0
        st.set("action", failed(2), writer="skill_execution")
        await pl.step(ctx)  # failed again: re-planned
        assert len(model.calls) == made + 1
        assert st.get("plan", Plan).revised_for.startswith("failure: collect")
    finally:
        await close(ctx)


async def test_with_a_model_only_the_current_steps_second_failure_re_plans() -> None:
    """Issue 30, part H: failures of other skills (a recovery's, a filler's) are the
    controller's to recover from, however many; the plan is re-planned when its current step
    has failed twice since the plan was revised (the plan cannot go on as written)."""
    steps = PlanOut(
        steps=[PlanStepOut(text="chop", skill="collect", args={"block": "oak_log"}, minutes=10)]
    )
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        model = ScriptedLanguageModel(responder=lambda r: steps)
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)  # the day, its first chunk, the steps
        made = len(model.calls)
        chop = st.get("plan", Plan).steps[0].skill
        assert chop is not None
        other = SkillCall(skill="craft", args={"item": "stick"})
        log: list[ActionLogEntry] = []

        def fail(call: SkillCall) -> None:
            clock.t += 1.0
            o = SkillOutcome(skill=call.skill, success=False, reason="no", ended_at=clock.t)
            log.append(ActionLogEntry(decision_id=f"d{len(log)}", call=call, outcome=o))
            st.set("action", Action(log=tuple(log)), writer="skill_execution")

        clock.t += 0.2 * HOUR_S
        for _ in range(3):  # another skill failed three times: the plan's step has not
            fail(other)
            await pl.step(ctx)
        assert len(model.calls) == made and pl.left_to_controller == 3
        fail(chop)  # the step's first failure: still the controller's
        await pl.step(ctx)
        assert len(model.calls) == made and pl.left_to_controller == 4
        fail(chop)  # its second: re-planned
        await pl.step(ctx)
        assert len(model.calls) == made + 1
        assert st.get("plan", Plan).revised_for.startswith("failure: collect")
    finally:
        await close(ctx)


async def test_a_model_answers_in_the_compact_format_of_each_level() -> None:
    """Issue 30: a model writes only what the level uses (no sub-steps, no skill on a
    chunk): completion tokens cost four times input ones."""
    call = {"block": "oak_log", "count": 4}
    full = PlanOut(  # every field the heuristic's plan fills
        steps=[
            PlanStepOut(
                text=f"collect 4 oak log ({i})",
                skill="collect",
                args=call,
                minutes=12,
                kind="gather_wood",
                substeps=["find oak_log", "walk there", "mine it", "pick up the drops"],
            )
            for i in range(6)
        ]
    )
    st, ctx, _clock, pl = await planner(perception=seeing("oak_log"))
    try:
        model = ScriptedLanguageModel(responder=lambda r: full)
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)
        assert [c.response_model for c in model.calls] == [ChunksOut, ChunksOut, StepsOut]
        steps_prompt = "\n".join(m.content for m in model.calls[2].messages)
        assert "substeps" not in steps_prompt and '"skill"' in steps_prompt
        p = st.get("plan", Plan)
        assert p.steps[0].skill is not None and p.steps[0].skill.args["block"] == "oak_log"
        assert p.day[0].kind == "gather_wood" and p.day[0].skill is None
        compact = StepsOut.model_validate(full.model_dump())
        assert len(compact.model_dump_json()) < 0.75 * len(full.model_dump_json())
    finally:
        await close(ctx)


async def test_with_a_model_steps_left_at_the_hours_end_are_finished_first() -> None:
    """Issue 30: the hour chunk is over but its steps are not: the plan has not run out, so
    no call (skills take their own time, not the game minutes a step was given); the next
    hour is decomposed when they run out. The heuristic moves on at the hour's end (see
    test_steps_done_and_time_passing_move_through_the_hours_and_days)."""
    steps = PlanOut(
        steps=[
            PlanStepOut(text="chop", skill="collect", args={"block": "oak_log"}, minutes=10),
            PlanStepOut(text="planks", skill="craft", args={"item": "oak_planks"}, minutes=5),
        ]
    )
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        model = ScriptedLanguageModel(responder=lambda r: steps)
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)
        made = len(model.calls)
        p = st.get("plan", Plan)
        hour_end = p.hours[0].start + p.hours[0].minutes / 60.0 - p.day[0].start  # game h
        assert p.day[0].minutes / 60.0 > hour_end + 0.2  # the day chunk goes on after it
        clock.t = T0 + (hour_end - 0.1) * HOUR_S
        await pl.step(ctx)  # within the hour: kept
        clock.t = T0 + (hour_end + 0.1) * HOUR_S  # the hour is over, both steps left: kept
        await pl.step(ctx)
        assert len(model.calls) == made and st.get("plan", Plan).steps == p.steps
        assert pl.carried == 1
        for s in p.steps:  # both steps done: the plan ran out, the next hour from now
            assert s.skill is not None
            clock.t += 1.0
            ok = SkillOutcome(skill=s.skill.skill, success=True, ended_at=clock.t)
            log = (ActionLogEntry(decision_id="d", call=s.skill, outcome=ok),)
            st.set("action", Action(log=log), writer="skill_execution")
            await pl.step(ctx)
        assert len(model.calls) == made + 1
        now = p.day[0].start + hour_end + 0.1
        assert st.get("plan", Plan).current == 0 and st.get("plan", Plan).steps[0].start >= now
    finally:
        await close(ctx)
