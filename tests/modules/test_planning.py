"""Planning as in Generative Agents: a day in 5-8 broad chunks, decomposed into hour chunks
and 5-15 minute steps with start times and durations in the agent's game time; stored as
plan memories; re-planned from now when a perceived conflict appears, and only then."""

from __future__ import annotations

import itertools
import random

from agent_runtime.state.sections import (
    Action,
    ActionLogEntry,
    Conversation,
    Goals,
    Plan,
    Utterance,
)
from agent_runtime.world import SkillCall, SkillOutcome
from modules.heuristics.planning import MAX_STEPS, MIN_STEPS, PlanStepOut, plan
from modules.plan_fit import fit
from modules.views import PlanView, clock_text
from tests.modules.planning_helpers import HOUR_S, T0, close, planner, seeing

# --- the levels (the policy and the module's fitting) --------------------------------------


def test_the_day_is_5_to_8_chunks_from_the_agents_own_summary() -> None:
    view = PlanView(
        name="Ann",
        goal="mine stone for the village",
        kind="mine",
        traits=("You like to work alone.",),
        start=0.0,
        end=24.0,
    )
    day = fit(plan(view, random.Random(0)).steps, "day", 0.0, 24.0)
    assert MIN_STEPS <= len(day) <= MAX_STEPS
    assert day[0].start == 0.0 and abs(sum(c.minutes for c in day) - 24 * 60) < 1e-6
    for a, b in itertools.pairwise(day):  # laid end to end
        assert abs(a.start + a.minutes / 60 - b.start) < 1e-9
    kinds = [c.kind for c in day]
    assert kinds.count("mine") >= 2 and "craft_tools" in kinds  # its goal, and what it needs
    assert "socialize" not in kinds  # its own traits say it works alone
    assert "mine stone for the village" in day[0].text
    social = plan(view.model_copy(update={"traits": ("You love company.",)}), random.Random(0))
    assert "socialize" in [c.kind for c in social.steps]


def test_a_day_plan_for_every_activity_and_temperament() -> None:
    """Every goal kind with traits that like any kind, alone or not, gives a day (a lone
    builder whose traits like building left no side activity: StopIteration, a module error
    in every step of a 5-agent village)."""
    from modules.knowledge import ACTIVITIES

    for kind in ACTIVITIES:
        for traits in (
            ("You prefer to work alone.", "You love to build."),
            ("You prefer to work alone.", f"You love to {ACTIVITIES[kind][0]}."),
            ("You love company.",),
            (),
        ):
            view = PlanView(name="Ann", goal="", kind=kind, traits=traits, start=0.0, end=24.0)
            day = fit(plan(view, random.Random(0)).steps, "day", 0.0, 24.0)
            assert MIN_STEPS <= len(day) <= MAX_STEPS, (kind, traits)


def test_a_chunk_becomes_hours_and_an_hour_becomes_5_to_15_minute_steps() -> None:
    chunk = PlanView(
        name="Ann", goal="craft tools", kind="craft_tools", level="hour", start=2.0, end=6.0
    )
    chunk = chunk.model_copy(update={"chunk": "craft tools", "chunk_kind": "craft_tools"})
    hours = fit(plan(chunk, random.Random(0)).steps, "hour", 2.0, 6.0)
    assert len(hours) == 4 and all(abs(h.minutes - 60) < 1e-6 for h in hours)
    assert [h.start for h in hours] == [2.0, 3.0, 4.0, 5.0]
    assert "log" in hours[0].text  # the tech tree from an empty inventory: wood first
    hour = chunk.model_copy(update={"level": "step", "start": 2.0, "end": 3.0})
    steps = fit(plan(hour, random.Random(0)).steps, "step", 2.0, 3.0)
    assert len(steps) >= 4
    assert all(5 <= s.minutes <= 15 for s in steps)
    assert steps[0].start == 2.0 and all(s.start < 3.0 for s in steps)
    assert all(s.skill is not None for s in steps)
    assert steps[0].skill is not None and steps[0].skill.skill == "collect"
    assert steps[0].skill.args["block"] == "log"  # no log kind in sight: any log will do
    birch = plan(hour.model_copy(update={"seen": {"birch_log": 4.0}}), random.Random(0))
    assert birch.steps[0].args["block"] == "birch_log"  # what it sees is preferred


def test_fitting_enforces_each_levels_counts_and_durations() -> None:
    two = [PlanStepOut(text="mine", minutes=600), PlanStepOut(text="rest", minutes=120)]
    day = fit(two, "day", 10.0, 22.0)
    assert len(day) == MIN_STEPS and abs(sum(c.minutes for c in day) - 12 * 60) < 1e-6
    many = [PlanStepOut(text=f"c{i}") for i in range(12)]
    assert len(fit(many, "day", 0.0, 24.0)) == MAX_STEPS
    odd = [PlanStepOut(text="a", skill="explore", minutes=1), PlanStepOut(text="b", minutes=90)]
    assert [s.minutes for s in fit(odd, "step", 0.0, 1.0)] == [5.0, 15.0]
    assert fit(odd, "step", 0.0, 0.05)[-1].text == "a"  # only steps starting in the window


# --- the module: levels, memories, re-planning ----------------------------------------------


async def test_the_module_plans_the_day_hours_and_steps_and_remembers_them() -> None:
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        clock.t = T0 + 2 * HOUR_S  # 08:00 of day 1
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.goal == "gather wood" and p.brain == "heuristic" and p.day_number == 0
        assert MIN_STEPS <= len(p.day) <= MAX_STEPS
        assert p.day[0].start == 2.0 and abs(p.day[-1].start + p.day[-1].minutes / 60 - 24) < 1e-6
        first = p.day[0]
        assert len(p.hours) == round(first.minutes / 60) and p.hours[0].start == 2.0
        assert p.steps and p.current == 0 and all(5 <= s.minutes <= 15 for s in p.steps)
        assert p.steps[0].skill == SkillCall(skill="collect", args={"block": "oak_log", "count": 4})
        assert p.steps[0].expects == ("oak_log",)  # its target was in sight when planned
        assert p.steps[0].substeps  # the heuristic's full plan (a model's is compact)
        mems = [m for m in ctx.memory if m.kind == "plan"]
        assert len(mems) == len(p.day) + len(p.hours) + 1  # chunks, hours, the hour's steps
        assert any(clock_text(2.0) in m.text and "gather wood" in m.text for m in mems)
        assert clock_text(2.0) == "day 1, 08:00"
    finally:
        await close(ctx)


async def test_no_conflict_keeps_the_plan() -> None:
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        await pl.step(ctx)
        before = st.get("plan", Plan)
        clock.t += 0.2 * HOUR_S  # 12 game minutes later, nothing new perceived
        await pl.step(ctx)
        assert st.get("plan", Plan) == before
    finally:
        await close(ctx)


async def test_the_steps_target_gone_from_sight_re_plans_from_now() -> None:
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        await pl.step(ctx)
        before = st.get("plan", Plan)
        clock.t += 0.2 * HOUR_S
        st.set("perception", seeing("birch_log"), writer="perception")
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.revised_for.startswith("gone: oak log")
        assert p.steps[0].skill is not None and p.steps[0].skill.args["block"] == "birch_log"
        assert p.steps[0].start == clock.game_hours() and p.revised_at == clock.t
        assert p.day == before.day and p.hours == before.hours  # only the steps from now
    finally:
        await close(ctx)


async def test_a_failure_re_plans_starting_with_the_reaction() -> None:
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        await pl.step(ctx)
        call = st.get("plan", Plan).steps[0].skill
        assert call is not None
        clock.t += 0.2 * HOUR_S
        failed = SkillOutcome(skill="collect", success=False, reason="no oak_log", ended_at=clock.t)
        log = (ActionLogEntry(decision_id="d1", call=call, outcome=failed),)
        st.set("action", Action(log=log), writer="skill_execution")
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.revised_for.startswith("failure: collect(block=oak_log, count=4) failed")
        assert p.steps[0].skill is not None and p.steps[0].skill.skill == "explore"
        clock.t += 0.1 * HOUR_S
        await pl.step(ctx)  # the same failure is not a new conflict
        assert st.get("plan", Plan) == p
    finally:
        await close(ctx)


async def test_a_heard_request_re_plans_and_small_talk_does_not() -> None:
    st, ctx, clock, pl = await planner(
        goals=Goals(current="mine stone", kind="mine"), perception=seeing()
    )
    try:
        await pl.step(ctx)
        before = st.get("plan", Plan)
        clock.t += 0.2 * HOUR_S
        chat = Utterance(speaker="Bob", text="Nice weather today!", to="Ann", at=clock.t)
        st.set("conversation", Conversation(lines=(chat,)), writer="talking")
        await pl.step(ctx)
        assert st.get("plan", Plan) == before
        clock.t += 0.1 * HOUR_S
        ask = Utterance(speaker="Bob", text="Ann, I need wood, can you bring some?", at=clock.t)
        st.set("conversation", Conversation(lines=(chat, ask)), writer="talking")
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.revised_for.startswith("request")
        assert p.steps[0].skill is not None and p.steps[0].skill.skill == "collect"
        assert "log" in str(p.steps[0].skill.args["block"])  # what was asked for comes first
    finally:
        await close(ctx)


async def test_a_goal_change_re_plans_the_rest_of_the_day_keeping_what_is_done() -> None:
    st, ctx, clock, pl = await planner(perception=seeing("oak_log"))
    try:
        await pl.step(ctx)
        clock.t += 5 * HOUR_S
        st.set("goals", Goals(current="mine stone", kind="mine"), writer="goal_generation")
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.goal == "mine stone" and p.revised_for.startswith("goal")
        done = [c for c in p.day if c.done]
        assert done and all(c.start < 5.0 for c in done)
        assert p.day[p.day_current].start == 5.0 and p.day[p.day_current].kind == "mine"
        assert MIN_STEPS <= len(p.day) - len(done) <= MAX_STEPS
    finally:
        await close(ctx)


async def test_steps_done_and_time_passing_move_through_the_hours_and_days() -> None:
    st, ctx, clock, pl = await planner(perception=seeing())
    try:
        await pl.step(ctx)
        p = st.get("plan", Plan)
        step = p.steps[0].skill
        assert step is not None
        clock.t += 0.1 * HOUR_S
        ok = SkillOutcome(skill=step.skill, success=True, ended_at=clock.t)
        log = (ActionLogEntry(decision_id="d1", call=step, outcome=ok),)
        st.set("action", Action(log=log), writer="skill_execution")
        await pl.step(ctx)
        assert st.get("plan", Plan).current == 1 and st.get("plan", Plan).steps[0].done
        clock.t = T0 + 1.5 * HOUR_S  # the first hour is over: the next hour chunk
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.hour_current == 1 and p.current == 0 and p.steps[0].start == 1.5
        clock.t = T0 + 24.5 * HOUR_S  # a new game day: a new day plan
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert p.day_number == 1 and p.day[0].start == 24.5 and p.revised_for == "a new day"
    finally:
        await close(ctx)
