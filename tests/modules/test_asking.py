"""The controller asks its model only when its view changed in a way that can change the
decision, at least every ``max_interval_s`` (issue 30); and its prompts are built for prefix
caching: what changes least first, so two consecutive prompts of one agent share a long,
byte-identical prefix."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.config.module_options import ControllerOptions, GoalOptions
from agent_runtime.interfaces import LLMRequest
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
from modules.controller.asking import AskGate, situation, why
from modules.controller.decisions import ControllerChoice
from modules.controller.module import CognitiveController
from tests.modules.helpers import NOW, bview

RUNNING = Action(running=SkillCall(skill="collect", args={"block": "oak_log"}), started_at=NOW - 5)
FED = Perception(observation=Observation(food=20, health=20, inventory={"bread": 1}))


def ann_heard(to: str | None, at: float = NOW - 1) -> Conversation:
    return Conversation(lines=(Utterance(speaker="Bob", text="Hello there", to=to, at=at),))


# --- why: the reasons to ask --------------------------------------------------------------


def test_an_unchanged_view_is_no_reason_until_the_ceiling() -> None:
    before = situation(bview(perception=FED, action=RUNNING), Decision())
    later = situation(bview(NOW + 4, perception=FED, action=RUNNING), Decision())
    assert why(None, before, 10.0) == ["first"]
    assert why(before, later, 10.0) == []
    ceiling = situation(bview(NOW + 10, perception=FED, action=RUNNING), Decision())
    assert why(before, ceiling, 10.0) == ["ceiling"]


def test_what_can_change_the_decision_is_a_reason() -> None:
    base: dict[str, Any] = {"perception": FED, "action": RUNNING}
    before = situation(bview(**base), Decision())

    def reasons(**sections: Any) -> list[str]:
        return why(before, situation(bview(NOW + 1, **{**base, **sections}), Decision()), 10.0)

    ended = Action(
        last_outcome=SkillOutcome(skill="collect", success=False, reason="no path", ended_at=NOW)
    )
    assert reasons(action=ended) == ["skill_ended", "idle"]
    assert reasons(conversation=ann_heard("Ann")) == ["addressed"]
    assert reasons(conversation=ann_heard("Cleo")) == []  # between others
    hurt = Perception(observation=Observation(food=20, health=4, inventory={"bread": 1}))
    assert reasons(perception=hurt) == ["danger"]
    # while the skill runs, what applies only when it ends is no reason
    step = PlanStep(text="collect stone", skill=SkillCall(skill="collect", args={"block": "stone"}))
    bob = NearbyPlayer(name="Bob", position=Vec3(x=1, y=64, z=1), distance=3.0)
    seen = Perception(observation=Observation(food=20, health=20, players=(bob,)))
    met = ann_heard(None).model_copy(update={"spoke_to": {"Bob": NOW - 100}})  # to everyone
    later: dict[str, Any] = {
        "goals": Goals(current="build a house"),
        "plan": Plan(goal="g", steps=(step,)),
        "conversation": met,  # Ann spoke to Bob before: no one to greet (see below)
        "perception": seen,
    }
    assert reasons(**later) == []
    assert reasons(**later, action=ended) == [
        "skill_ended",
        "idle",
        "goal",
        "plan_step",
        "heard",
        "player",
    ]


def test_a_skill_on_its_way_to_the_body_is_not_idle() -> None:
    decided = Decision(skill=SkillCall(skill="explore", args={"distance": 8}), updated_at=NOW - 1)
    assert not situation(bview(perception=FED), decided).idle
    assert situation(bview(perception=FED), Decision()).idle


# --- the controller -----------------------------------------------------------------------


@contextlib.asynccontextmanager
async def controller(**options: Any) -> AsyncIterator[tuple[CognitiveController, Any, Any]]:
    def reply(request: LLMRequest[Any]) -> ControllerChoice:
        return ControllerChoice(kind=IntentKind.CONTINUE, reason="keep at it")

    model = ScriptedLanguageModel(responder=reply, name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You are kind.",)), writer="runtime")
        st.set("perception", FED, writer="perception")
        running = Action(
            running=SkillCall(skill="collect", args={"block": "oak_log"}), started_at=time.time()
        )
        st.set("action", running, writer="skill_execution")
        cc = CognitiveController(Schedule(cadence=3.0), ControllerOptions(**options))
        ctx = module_context(svc, cc, agent="Ann")
        ctx.shared["brain:cognitive_controller"] = Brain(
            model, module="cognitive_controller", agent="Ann"
        )
        yield cc, ctx, model


async def test_the_controller_asks_only_when_something_changed() -> None:
    async with controller() as (cc, ctx, model):
        for _ in range(4):  # the same skill runs, nobody talks: one call, then none
            await cc.step(ctx)
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.held == 3
        outcome = SkillOutcome(skill="collect", success=True, ended_at=time.time())
        ctx.state.set("action", Action(last_outcome=outcome), writer="skill_execution")
        await cc.step(ctx)  # the skill ended: the model is asked
        assert len(model.calls) == 2 and cc.gate.asked == {"first": 1, "skill_ended": 1}
        line = Utterance(speaker="Bob", text="Ann, any bread?", to="Ann", at=time.time())
        ctx.state.set("conversation", Conversation(lines=(line,)), writer="talking")
        await cc.step(ctx)  # addressed
        await cc.step(ctx)
        assert len(model.calls) == 3 and cc.get_state()["held"] == 4


async def test_with_the_option_off_it_asks_on_every_step() -> None:
    async with controller(ask_on_change=False) as (cc, ctx, model):
        for _ in range(4):
            await cc.step(ctx)
        assert len(model.calls) == 4 and cc.gate is None


def test_the_gate_counts_calls_by_reason() -> None:
    gate = AskGate(5.0)
    now = situation(bview(perception=FED), Decision())
    gate.hold()
    assert gate.ask(now, ["first"]) == 1 and gate.held == 0 and gate.asked == {"first": 1}


# --- prompts built for prefix caching ------------------------------------------------------


async def test_consecutive_controller_prompts_share_the_fixed_prefix() -> None:
    """Two prompts of one agent a few seconds apart (it moved, its inventory grew, someone
    spoke): the system message is byte-identical, and the user message shares everything up
    to the sections that changed, which come last."""
    step = PlanStep(text="collect 4 oak_log", skill=SkillCall(skill="collect", args={"block": "x"}))
    fixed: dict[str, Any] = dict(
        identity=Identity(name="Ann", traits=("You are kind.",), community_goal="Thrive."),
        goals=Goals(current="gather wood for the village"),
        plan=Plan(goal="gather wood for the village", steps=(step,)),
        action=RUNNING,
    )

    def seen(x: float, logs: int) -> Perception:
        obs = Observation(position=Vec3(x=x, y=64, z=0), inventory={"oak_log": logs})
        return Perception(observation=obs)

    first = bview(perception=seen(1, 2), **fixed)
    second = bview(NOW + 3, perception=seen(4, 3), conversation=ann_heard("Ann"), **fixed)
    async with controller() as (cc, ctx, _):
        policy = cc.policy(ctx)
        a = policy.request(first).messages  # type: ignore[attr-defined]
        b = policy.request(second).messages  # type: ignore[attr-defined]
    assert a[0].content == b[0].content and "$" not in a[0].content  # system: rendered, fixed
    ua, ub = a[1].content, b[1].content
    shared = next(i for i, (x, y) in enumerate(zip(ua, ub, strict=False)) if x != y)
    prefix = ua[:shared]
    for part in ("## identity", "You are Ann.", "## goals", "## plan", "## action"):
        assert part in prefix, part
    assert "Bob (to Ann)" in ub[shared:] and "Position" in ub[shared:]


# --- goal generation ------------------------------------------------------------------------


async def test_goals_are_asked_for_only_when_their_inputs_changed() -> None:
    from modules.goal_generation import GoalGeneration
    from modules.heuristics.goals import GoalOut

    model = ScriptedLanguageModel(
        responder=lambda r: GoalOut(goal="gather wood", kind="gather_wood", reason="wood"),
        name="m",
    )
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You are kind.",)), writer="runtime")
        st.set("perception", FED, writer="perception")
        gg = GoalGeneration(Schedule(cadence=5.0))
        ctx = module_context(svc, gg, agent="Ann")
        ctx.shared["brain:goal_generation"] = Brain(model, module="goal_generation", agent="Ann")
        await gg.step(ctx)  # no goal yet: asked
        assert len(model.calls) == 1 and st.get("goals", Goals).current == "gather wood"
        await gg.step(ctx)  # its own new goal is no news: nothing changed
        await gg.step(ctx)
        assert len(model.calls) == 1 and gg.gate is not None and gg.gate.held == 2
        chat = Utterance(speaker="Bob", text="What a nice morning.", to=None, at=time.time())
        st.set("conversation", Conversation(lines=(chat,)), writer="talking")
        fed = FED.model_copy(deep=True)
        fed.observation.inventory["oak_log"] = fed.observation.inventory.get("oak_log", 0) + 1
        st.set("perception", fed, writer="perception")
        await gg.step(ctx)  # a line that asks nothing, one more log: no news for the goal
        assert len(model.calls) == 1
        line = Utterance(speaker="Bob", text="I need stone, anyone?", to=None, at=time.time())
        st.set("conversation", Conversation(lines=(chat, line)), writer="talking")
        await gg.step(ctx)  # heard a request: asked again
        assert len(model.calls) == 2
        off = GoalGeneration(Schedule(cadence=5.0), GoalOptions(ask_on_change=False))
        ctx2 = module_context(svc, off, agent="Ann")
        ctx2.shared["brain:goal_generation"] = ctx.shared["brain:goal_generation"]
        await off.step(ctx2)
        await off.step(ctx2)
        assert len(model.calls) == 4


def test_goal_and_plan_step_prompts_render_with_what_is_fixed_first() -> None:
    """The goal and plan-step prompts render from their views (every variable supplied)
    and put the fixed lines (activities, skills) before what changes (inventory last)."""
    from agent_runtime import prompts
    from modules.views import GoalView, PlanView

    goal = GoalView(name="Ann", kinds=("farm", "mine"), inventory={"oak_log": 3})
    plan = PlanView(name="Ann", goal="gather wood", skills=("collect", "craft"), level="step")
    for name, variables, fixed in (
        ("goal_generation", goal.prompt_variables(), "Activities to choose"),
        ("planning_steps", plan.prompt_variables(), "Skills: "),
    ):
        system, user = prompts.render(prompts.prompt_path("modules", name), variables)
        assert "$" not in system.content + user.content, name
        text = user.content
        assert text.index(fixed) < text.index("Current goal") < text.index("Inventory"), name


async def test_the_heuristic_brain_is_never_gated() -> None:
    """Without a model nothing is saved by holding: the heuristic decides on every step,
    as before issue 30 (its behaviour is unchanged)."""
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", FED, writer="perception")
        cc = CognitiveController(Schedule(cadence=3.0))
        ctx = module_context(svc, cc, agent="Ann")
        seen: list[dict[str, Any]] = []
        svc.events.add_listener(seen.append)
        for _ in range(3):
            await cc.step(ctx)
        assert cc.gate is not None and cc.gate.held == 0 and not cc.gate.asked
        assert not [e for e in seen if e["type"] == "controller_asked"]
        assert not [e for e in seen if e["type"] == "controller_followed_plan"]
        assert [e for e in seen if e["type"] == "decision"]


# --- a standing decision: the plan's next steps without a call ------------------------------

PLAN_STEPS = (
    PlanStep(text="chop oaks", skill=SkillCall(skill="collect", args={"block": "oak_log"})),
    PlanStep(text="make planks", skill=SkillCall(skill="craft", args={"item": "oak_planks"})),
    PlanStep(text="make sticks", skill=SkillCall(skill="craft", args={"item": "stick"})),
)


@contextlib.asynccontextmanager
async def standing(
    follow_plan_steps: int, *then: ControllerChoice
) -> AsyncIterator[tuple[CognitiveController, Any, Any, Any, list[dict[str, Any]]]]:
    """Ann with the wood plan at its first step and a model whose every answer is a standing
    decision to chop oaks (the first answer only, when answers ``then`` follow it):
    (controller, context, model, state, events seen)."""
    chop = ControllerChoice(
        kind=IntentKind.WORK, skill="collect", item="oak_log", follow_plan=True, reason="plan"
    )
    answers = iter((chop, *then))
    model = ScriptedLanguageModel(responder=lambda r: next(answers) if then else chop, name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", FED, writer="perception")
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=0), writer="planning")
        cc = CognitiveController(
            Schedule(cadence=3.0), ControllerOptions(follow_plan_steps=follow_plan_steps)
        )
        ctx = module_context(svc, cc, agent="Ann")
        ctx.shared["brain:cognitive_controller"] = Brain(
            model, module="cognitive_controller", agent="Ann"
        )
        seen: list[dict[str, Any]] = []
        svc.events.add_listener(seen.append)
        yield cc, ctx, model, st, seen


def _step_done(ctx: Any, cc: CognitiveController, index: int, *, success: bool = True) -> None:
    """The current step's skill started after the last decision and ended; the plan moved
    on to step ``index``."""
    started = time.time()
    done = PLAN_STEPS[index - 1].skill
    assert done is not None
    out = SkillOutcome(skill=done.skill, success=success, ended_at=started + 0.01)
    ctx.state.set("action", Action(last_outcome=out, started_at=started), writer="skill_execution")
    ctx.state.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=index), writer="planning")


async def test_a_standing_decision_starts_the_plans_next_step_without_a_call() -> None:
    """Issue 30, part C: the model's decision to carry out its plan's step is standing
    (``follow_plan``): when that skill succeeds and the only news is that the plan moved on,
    the next step starts without a call, labelled as the model's (``+plan``); a failure, a
    line to the agent or ``follow_plan_steps`` such steps bring the model back."""
    async with standing(follow_plan_steps=2) as (cc, ctx, model, st, seen):
        await cc.step(ctx)  # the model: chop oaks, a standing decision
        assert len(model.calls) == 1
        _step_done(ctx, cc, 1)
        await cc.step(ctx)  # chopped, the plan moved on: planks, no call
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.followed == 1
        d = st.get("decision", Decision)
        assert d.brain == "llm:m+plan" and d.skill is not None
        assert (d.skill.skill, d.skill.args.get("item")) == ("craft", "oak_planks")
        assert [e["step"] for e in seen if e["type"] == "controller_followed_plan"] == [
            "make planks"
        ]
        _step_done(ctx, cc, 2)
        await cc.step(ctx)  # the second and last step it covers
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and d.skill is not None and d.skill.args["item"] == "stick"
        _step_done(ctx, cc, 2)  # no step left on it: the model is asked
        ctx.state.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=0), writer="planning")
        _step_done(ctx, cc, 1)
        await cc.step(ctx)
        assert len(model.calls) == 2  # ... and its answer stands again
        _step_done(ctx, cc, 1, success=False)  # a failure: the model is asked
        ctx.state.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=2), writer="planning")
        await cc.step(ctx)
        assert len(model.calls) == 3
        _step_done(ctx, cc, 2)
        line = Utterance(speaker="Bob", text="Ann, any bread?", to="Ann", at=time.time())
        ctx.state.set("conversation", Conversation(lines=(line,)), writer="talking")
        await cc.step(ctx)  # a line to the agent as well: the model is asked
        assert len(model.calls) == 4 and cc.gate.followed == 2


async def test_a_standing_decision_survives_an_answer_that_keeps_the_course() -> None:
    """Asked at the ceiling while the standing step runs, the model only keeps the course;
    its standing decision still covers the plan's next step (no call at the step's end)."""
    chop = ControllerChoice(
        kind=IntentKind.WORK, skill="collect", item="oak_log", follow_plan=True, reason="plan"
    )
    keep = ControllerChoice(kind=IntentKind.CONTINUE, reason="still chopping")
    answers = iter([chop, keep])
    model = ScriptedLanguageModel(responder=lambda r: next(answers), name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", FED, writer="perception")
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=0), writer="planning")
        cc = CognitiveController(Schedule(cadence=3.0), ControllerOptions(follow_plan_steps=3))
        ctx = module_context(svc, cc, agent="Ann")
        ctx.shared["brain:cognitive_controller"] = Brain(
            model, module="cognitive_controller", agent="Ann"
        )
        await cc.step(ctx)  # chop oaks, standing
        assert cc.gate is not None and cc.gate.last is not None
        cc.gate.last = cc.gate.last.model_copy(update={"at": 0.0})  # the ceiling has passed
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.gate.asked.get("ceiling") == 1
        _step_done(ctx, cc, 1)
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
        ctx.shared["brain:cognitive_controller"] = Brain(
            model, module="cognitive_controller", agent="Ann"
        )
        await cc.step(ctx)
        _step_done(ctx, cc, 1)
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
            t = time.time()  # started after the last decision, ended just now
            out = SkillOutcome(skill=call.skill, success=True, ended_at=t + 0.01)
            entry = ActionLogEntry(decision_id="d", call=call, outcome=out, started_at=t)
            ctx.state.set(
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
    model = ScriptedLanguageModel(responder=lambda r: logs, name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", FED, writer="perception")
        st.set("plan", Plan(goal="wood", steps=PLAN_STEPS, current=1), writer="planning")
        cc = CognitiveController(Schedule(cadence=3.0), ControllerOptions(follow_plan_steps=3))
        ctx = module_context(svc, cc, agent="Ann")
        ctx.shared["brain:cognitive_controller"] = Brain(
            model, module="cognitive_controller", agent="Ann"
        )
        seen: list[dict[str, Any]] = []
        svc.events.add_listener(seen.append)
        await cc.step(ctx)  # the model: collect logs first (off the plan's "make planks")
        assert len(model.calls) == 1
        t = time.time()
        out = SkillOutcome(skill="collect", success=True, ended_at=t + 0.01)
        st.set("action", Action(last_outcome=out, started_at=t), writer="skill_execution")
        await cc.step(ctx)  # logs collected, the plan still at "make planks": no call
        d = st.get("decision", Decision)
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.followed == 1
        assert d.brain == "llm:m+plan" and d.skill is not None
        assert (d.skill.skill, d.skill.args.get("item")) == ("craft", "oak_planks")
        followed = [e for e in seen if e["type"] == "controller_followed_plan"]
        assert [(e["step"], e["again"]) for e in followed] == [("make planks", True)]
        t = time.time()  # the planks failed: the model is asked, and says why it was
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
        run = Action(running=SkillCall(skill="collect", args={"block": "oak_log"}))
        st.set(
            "action", run.model_copy(update={"started_at": time.time()}), writer="skill_execution"
        )
        cc.gate.last = cc.gate.last.model_copy(update={"at": 0.0})  # the ceiling has passed
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
        _step_done(ctx, cc, 3)  # done, and the plan ran out (current 3 of 3 steps)
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
        _step_done(ctx, cc, 3)
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
        started = time.time()
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
        _step_done(ctx, cc, 1)
        await cc.step(ctx)  # chopped: planks on the standing decision, no call
        assert len(model.calls) == 2 and cc.gate.followed == 1
        assert [e["reasons"] for e in seen if e["type"] == "controller_asked"] == [
            ["first"],
            ["unmet"],
        ]
