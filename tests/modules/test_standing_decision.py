"""A standing decision: the model's choice to carry out its plan's step stands for the plan's
next steps, which start without a call, until the plan, the view or the ceiling says
otherwise (issue 30, part C)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.clock import wall_time
from agent_runtime.config.module_options import ControllerOptions
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
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
    Plan,
    PlanStep,
    Utterance,
    UtteranceKind,
)
from agent_runtime.world import NearbyPlayer, Observation, SkillCall, SkillOutcome, Vec3
from modules.controller.decisions import ControllerChoice
from modules.controller.module import CognitiveController
from tests.modules.helpers import bview

FED = Perception(observation=Observation(food=20, health=20, inventory={"bread": 1}))


PLAN_STEPS = (
    PlanStep(text="chop oaks", skill=SkillCall(skill="collect", args={"block": "oak_log"})),
    PlanStep(text="make planks", skill=SkillCall(skill="craft", args={"item": "oak_planks"})),
    PlanStep(text="make sticks", skill=SkillCall(skill="craft", args={"item": "stick"})),
)


@contextlib.asynccontextmanager
async def standing(
    follow_plan_steps: int,
    *then: ControllerChoice,
    first: ControllerChoice | None = None,
    current: int = 0,
) -> AsyncIterator[tuple[CognitiveController, Any, Any, Any, list[dict[str, Any]]]]:
    """Ann with the wood plan at step ``current`` and a model whose every answer is a standing
    decision (``first``; by default: chop oaks), the first answer only when answers ``then``
    follow it: (controller, context, model, state, events seen)."""
    chop = first or ControllerChoice(
        kind=IntentKind.WORK, skill="collect", item="oak_log", follow_plan=True, reason="plan"
    )
    answers = iter((chop, *then))
    model = ScriptedLanguageModel(responder=lambda r: next(answers) if then else chop, name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", FED, writer="perception")
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=current), writer="planning")
        cc = CognitiveController(
            Schedule(cadence=3.0), ControllerOptions(follow_plan_steps=follow_plan_steps)
        )
        ctx = module_context(svc, cc, agent="Ann")
        ctx.brain = Brain(model, module="cognitive_controller", agent="Ann")
        seen: list[dict[str, Any]] = []
        svc.events.add_listener(seen.append)
        yield cc, ctx, model, st, seen


def ceiling_passes_while_chopping(cc: CognitiveController, st: Any) -> None:
    """The standing decision's skill (chop oaks) runs, and only the ceiling has passed."""
    run = Action(running=SkillCall(skill="collect", args={"block": "oak_log"}))
    st.set("action", run.model_copy(update={"started_at": wall_time()}), writer="skill_execution")
    assert cc.gate is not None and cc.gate.last is not None
    cc.gate.last = cc.gate.last.model_copy(update={"at": 0.0})


def _step_done(st: Any, cc: CognitiveController, index: int, *, success: bool = True) -> None:
    """The current step's skill started after the last decision and ended; the plan moved
    on to step ``index``."""
    started = wall_time()
    done = PLAN_STEPS[index - 1].skill
    assert done is not None
    out = SkillOutcome(skill=done.skill, success=success, ended_at=started + 0.01)
    st.set("action", Action(last_outcome=out, started_at=started), writer="skill_execution")
    st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=index), writer="planning")


async def test_a_standing_decision_starts_the_plans_next_step_without_a_call() -> None:
    """Issue 30, part C: the model's decision to carry out its plan's step is standing
    (``follow_plan``): when that skill succeeds and the only news is that the plan moved on,
    the next step starts without a call, labelled as the model's (``+plan``); a failure, a
    line to the agent or ``follow_plan_steps`` such steps bring the model back."""
    async with standing(follow_plan_steps=2) as (cc, ctx, model, st, seen):
        await cc.step(ctx)  # the model: chop oaks, a standing decision
        assert len(model.calls) == 1
        _step_done(st, cc, 1)
        await cc.step(ctx)  # chopped, the plan moved on: planks, no call
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.followed == 1
        d = st.get("decision", Decision)
        assert d.brain == "llm:m+plan" and d.skill is not None
        assert (d.skill.skill, d.skill.args.get("item")) == ("craft", "oak_planks")
        assert [e["step"] for e in seen if e["type"] == "controller_followed_plan"] == [
            "make planks"
        ]
        _step_done(st, cc, 2)
        await cc.step(ctx)  # the second and last step it covers
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and d.skill is not None and d.skill.args["item"] == "stick"
        _step_done(st, cc, 2)  # no step left on it: the model is asked
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=0), writer="planning")
        _step_done(st, cc, 1)
        await cc.step(ctx)
        assert len(model.calls) == 2  # ... and its answer stands again
        _step_done(st, cc, 1, success=False)  # a failure: the model is asked
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=2), writer="planning")
        await cc.step(ctx)
        assert len(model.calls) == 3
        _step_done(st, cc, 2)
        line = Utterance(speaker="Bob", text="Ann, any bread?", to="Ann", at=wall_time())
        st.set("conversation", Conversation(lines=(line,)), writer="talking")
        await cc.step(ctx)  # a line to the agent as well: the model is asked
        assert len(model.calls) == 4 and cc.gate.followed == 2


async def test_a_standing_decision_survives_an_answer_that_keeps_the_course() -> None:
    """Asked at the ceiling while the standing step runs, the model only keeps the course;
    its standing decision still covers the plan's next step (no call at the step's end)."""
    keep = ControllerChoice(kind=IntentKind.CONTINUE, reason="still chopping")
    async with standing(3, keep) as (cc, ctx, model, st, _):
        await cc.step(ctx)  # chop oaks, standing
        assert cc.gate is not None and cc.gate.last is not None
        cc.gate.last = cc.gate.last.model_copy(update={"at": 0.0})  # the ceiling has passed
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.gate.asked.get("ceiling") == 1
        _step_done(st, cc, 1)
        await cc.step(ctx)  # chopped, the plan moved on: planks on the standing decision
        assert len(model.calls) == 2 and cc.gate.followed == 1
        assert st.get("decision", Decision).brain == "llm:m+plan"


async def test_without_follow_plan_every_steps_end_asks_the_model() -> None:
    chop = ControllerChoice(kind=IntentKind.WORK, skill="collect", item="oak_log")
    model = ScriptedLanguageModel(responder=lambda r: chop, name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", FED, writer="perception")
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=0), writer="planning")
        cc = CognitiveController(Schedule(cadence=3.0))
        ctx = module_context(svc, cc, agent="Ann")
        ctx.brain = Brain(model, module="cognitive_controller", agent="Ann")
        await cc.step(ctx)
        _step_done(st, cc, 1)
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.gate is not None and cc.gate.followed == 0


async def test_a_standing_decision_does_not_wait_for_planning_to_mark_the_step_done() -> None:
    """The skill event wakes the controller and the planning module alike; when the controller
    looks first, the plan still shows the step just done as current. The next step is the one
    after it (the rule planning applies), not a call to the model (part C's run: 179 of 465
    asks were skill ends with no plan move seen). A plan written after the outcome (planning
    looked first, or re-planned) is read as it stands."""
    async with standing(follow_plan_steps=3) as (cc, ctx, model, st, _):
        await cc.step(ctx)  # the model: chop oaks, standing
        assert len(model.calls) == 1

        def ended(index: int) -> None:  # step ``index``'s skill ended well; plan not marked
            call = PLAN_STEPS[index].skill
            assert call is not None
            t = wall_time()  # started after the last decision, ended just now
            out = SkillOutcome(skill=call.skill, success=True, ended_at=t + 0.01)
            entry = ActionLogEntry(decision_id="d", call=call, outcome=out, started_at=t)
            st.set(
                "action",
                Action(last_outcome=out, started_at=t, log=(entry,)),
                writer="skill_execution",
            )

        ended(0)
        await cc.step(ctx)  # the plan still says "chop oaks": planks next, no call
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and d.brain == "llm:m+plan"
        assert d.skill is not None and d.skill.args.get("item") == "oak_planks"
        # planning marks chop done now (written after the outcome), then the planks end too
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=1), writer="planning")
        ended(1)
        await cc.step(ctx)
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and d.skill is not None and d.skill.args["item"] == "stick"
        # a plan written after the last outcome is read as it stands: its current step
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=0), writer="planning")
        await cc.step(ctx)  # (no skill ended since: nothing to follow, nothing asked)
        assert len(model.calls) == 1


async def test_a_standing_decision_off_the_plan_goes_back_to_the_plans_step() -> None:
    """Issue 30, part H: a standing decision need not be the plan's step (a recovery, a step
    of its goal first): when its skill succeeds and nothing else is news, the plan's step the
    agent would do now starts without a call, even if it is the step the decision was made
    on (part G's run: 130 of 287 skill-end calls followed a decision off the plan)."""
    logs = ControllerChoice(
        kind=IntentKind.RECOVER, skill="collect", item="oak_log", follow_plan=True, reason="logs"
    )
    async with standing(3, first=logs, current=1) as (cc, ctx, model, st, seen):
        await cc.step(ctx)  # the model: collect logs first (off the plan's "make planks")
        assert len(model.calls) == 1
        t = wall_time()
        out = SkillOutcome(skill="collect", success=True, ended_at=t + 0.01)
        st.set("action", Action(last_outcome=out, started_at=t), writer="skill_execution")
        await cc.step(ctx)  # logs collected, the plan still at "make planks": no call
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.followed == 1
        assert d.brain == "llm:m+plan" and d.skill is not None
        assert (d.skill.skill, d.skill.args.get("item")) == ("craft", "oak_planks")
        followed = [e for e in seen if e["type"] == "controller_followed_plan"]
        assert [(e["step"], e["again"]) for e in followed] == [("make planks", True)]
        t = wall_time()  # the planks failed: the model is asked, and says why it was
        out = SkillOutcome(skill="craft", success=False, ended_at=t + 0.01)
        st.set("action", Action(last_outcome=out, started_at=t), writer="skill_execution")
        await cc.step(ctx)
        assert len(model.calls) == 2
        asked = [e for e in seen if e["type"] == "controller_asked"]
        assert asked[-1]["not_followed"] == "failed" and asked[-1]["standing"] == 2


async def test_a_standing_decision_keeps_the_course_at_the_ceiling_for_a_while() -> None:
    """Issue 30, part H: while the skill of a standing decision runs and only the ceiling
    passed, the decision keeps the course itself (a ``continue`` labelled ``+plan``, no call,
    the agent still decides at the ceiling); ``standing_ask_s`` after the model's last call,
    the ceiling asks the model again."""
    async with standing(follow_plan_steps=3) as (cc, ctx, model, st, seen):
        await cc.step(ctx)  # chop oaks, standing
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.last is not None
        ceiling_passes_while_chopping(cc, st)
        await cc.step(ctx)
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and cc.gate.kept == 1
        assert d.brain == "llm:m+plan" and d.kind is IntentKind.CONTINUE and d.skill is None
        await cc.step(ctx)  # the ceiling counts from there: nothing to do
        assert len(model.calls) == 1 and cc.gate.kept == 1
        cc.gate.last = cc.gate.last.model_copy(update={"at": 0.0})
        cc._asked_at -= cc.standing_ask_s  # the model was last asked standing_ask_s ago
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.gate.kept == 1 and cc.gate.asked.get("ceiling") == 1
        asked = [e for e in seen if e["type"] == "controller_asked"]
        assert asked[-1]["not_followed"] == "ceiling, model not asked for long"


def test_the_simulated_models_recovery_and_goal_steps_stand_while_the_plan_has_a_step() -> None:
    """The heuristic content of the simulated endpoint marks its decision standing when it
    carries out the plan's step, works towards its goal or recovers while its plan has a step
    with a skill; never when the plan has no such step, nor for what is no work (eat, talk)."""
    import random

    from modules.controller.prompt import heuristic_choice

    plan = Plan(goal="wood", steps=PLAN_STEPS, current=1)
    planks = SkillCall(skill="craft", args={"item": "oak_planks"})
    base = bview(perception=FED, plan=plan, goals=Goals(current="wood", kind="gather_wood"))
    picks = [heuristic_choice(base, random.Random(seed)) for seed in range(12)]
    works = [c for c in picks if c.kind is IntentKind.WORK]
    assert works and all(c.follow_plan for c in works)
    assert any(c.skill != "craft" for c in works)  # a goal's step off the plan, standing too
    out = SkillOutcome(skill="craft", success=False, reason="missing ingredients: 1 oak_log")
    failed = Action(
        last_outcome=out,
        log=(ActionLogEntry(decision_id="d", call=planks, outcome=out),),
    )
    rec = heuristic_choice(
        bview(perception=FED, plan=plan, action=failed, goals=Goals(current="wood")),
        random.Random(0),
    )
    assert rec.kind is IntentKind.RECOVER and rec.skill is not None and rec.follow_plan
    bare = bview(perception=FED, plan=Plan(goal="wood"), goals=Goals(current="wood"))
    assert not heuristic_choice(bare, random.Random(0)).follow_plan


async def test_a_standing_decision_waits_briefly_for_the_plans_next_steps() -> None:
    """Issue 30, part H: when the standing decision's skill succeeded and the plan's steps ran
    out, the planning module (woken by the same skill event) is writing the next ones: the
    controller holds (no call, no decision) for up to ``PLAN_WAIT_S`` and follows the first
    new step; when none comes in time, the model is asked."""
    from agent_runtime.config.module_options import PLAN_WAIT_S

    async with standing(follow_plan_steps=6) as (cc, ctx, model, st, seen):
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=2), writer="planning")
        await cc.step(ctx)  # the model: chop oaks (off the plan's sticks), standing
        assert len(model.calls) == 1 and cc.gate is not None
        _step_done(st, cc, 3)  # done, and the plan ran out (current 3 of 3 steps)
        before = st.get("decision", Decision)
        await cc.step(ctx)
        assert len(model.calls) == 1 and cc.waited == 1
        assert st.get("decision", Decision) == before  # nothing decided meanwhile
        await cc.step(ctx)  # still no steps: still waiting
        assert len(model.calls) == 1 and cc.waited == 2
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=0), writer="planning")
        await cc.step(ctx)  # the next steps: the first starts on the standing decision
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and cc.gate.followed == 1
        assert d.brain == "llm:m+plan" and d.skill is not None and d.skill.skill == "collect"
        # the plan runs out again, and planning writes nothing in time: the model is asked
        _step_done(st, cc, 3)
        out = st.get("action", Action).last_outcome
        assert out is not None
        late = out.model_copy(update={"ended_at": out.ended_at - 2 * PLAN_WAIT_S})
        st.set(
            "action", Action(last_outcome=late, started_at=out.ended_at), writer="skill_execution"
        )
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.waited == 2
        asked = [e for e in seen if e["type"] == "controller_asked"]
        assert asked[-1]["not_followed"] == "no plan step with a skill"


async def test_the_model_greets_while_its_standing_step_runs_and_the_plan_goes_on() -> None:
    """Issue 30, talk occasions: Bob, whom Ann has not spoken to, comes into view while the
    standing step runs: the model is asked (``unmet``) and greets him, keeping the course;
    its standing decision still starts the plan's next step without a call."""
    greet = ControllerChoice(
        kind=IntentKind.CONTINUE, say=UtteranceKind.GREET, say_to="Bob", reason="Bob is new"
    )
    async with standing(3, greet) as (cc, ctx, model, st, seen):
        await cc.step(ctx)  # chop oaks, standing
        started = wall_time()
        chop = Action(running=PLAN_STEPS[0].skill, started_at=started)
        st.set("action", chop, writer="skill_execution")
        await cc.step(ctx)
        assert len(model.calls) == 1  # nothing new while it chops
        bob = NearbyPlayer(name="Bob", position=Vec3(x=1, y=64, z=1), distance=3.0)
        seen_bob = Observation(food=20, health=20, inventory={"bread": 1}, players=(bob,))
        st.set("perception", Perception(observation=seen_bob), writer="perception")
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.gate is not None and cc.gate.asked.get("unmet") == 1
        d = st.get("decision", Decision)
        assert d.say is not None and d.say.to == "Bob" and d.skill is None
        _step_done(st, cc, 1)
        await cc.step(ctx)  # chopped: planks on the standing decision, no call
        assert len(model.calls) == 2 and cc.gate.followed == 1
        assert [e["reasons"] for e in seen if e["type"] == "controller_asked"] == [
            ["first"],
            ["unmet"],
        ]
