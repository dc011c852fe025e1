"""The controller asks its model only when its view changed in a way that can change the
decision, at least every ``max_interval_s`` (issue 30); and its prompts are built for prefix
caching: what changes least first, so two consecutive prompts of one agent share a long,
byte-identical prefix."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.clock import wall_time
from agent_runtime.config.module_options import ControllerOptions, GoalOptions
from agent_runtime.interfaces import LLMRequest
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.module import Schedule
from agent_runtime.state.sections import (
    Action,
    Conversation,
    Decision,
    Goals,
    Identity,
    IntentKind,
    Perception,
    Plan,
    PlanStep,
    Utterance,
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
async def controller(
    **options: Any,
) -> AsyncIterator[tuple[CognitiveController, Any, Any, Any]]:
    def reply(request: LLMRequest[Any]) -> ControllerChoice:
        return ControllerChoice(kind=IntentKind.CONTINUE, reason="keep at it")

    model = ScriptedLanguageModel(responder=reply, name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann", traits=("You are kind.",)), writer="runtime")
        st.set("perception", FED, writer="perception")
        running = Action(
            running=SkillCall(skill="collect", args={"block": "oak_log"}), started_at=wall_time()
        )
        st.set("action", running, writer="skill_execution")
        cc = CognitiveController(Schedule(cadence=3.0), ControllerOptions(**options))
        ctx = module_context(svc, cc, agent="Ann")
        ctx.brain = Brain(model, module="cognitive_controller", agent="Ann")
        yield cc, ctx, model, st


async def test_the_controller_asks_only_when_something_changed() -> None:
    async with controller() as (cc, ctx, model, st):
        for _ in range(4):  # the same skill runs, nobody talks: one call, then none
            await cc.step(ctx)
        assert len(model.calls) == 1 and cc.gate is not None and cc.gate.held == 3
        outcome = SkillOutcome(skill="collect", success=True, ended_at=wall_time())
        st.set("action", Action(last_outcome=outcome), writer="skill_execution")
        await cc.step(ctx)  # the skill ended: the model is asked
        assert len(model.calls) == 2 and cc.gate.asked == {"first": 1, "skill_ended": 1}
        line = Utterance(speaker="Bob", text="Ann, any bread?", to="Ann", at=wall_time())
        st.set("conversation", Conversation(lines=(line,)), writer="talking")
        await cc.step(ctx)  # addressed
        await cc.step(ctx)
        assert len(model.calls) == 3 and cc.get_state()["held"] == 4


async def test_with_the_option_off_it_asks_on_every_step() -> None:
    async with controller(ask_on_change=False) as (cc, ctx, model, _):
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
    async with controller() as (cc, ctx, _, _):
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
        ctx.brain = Brain(model, module="goal_generation", agent="Ann")
        await gg.step(ctx)  # no goal yet: asked
        assert len(model.calls) == 1 and st.get("goals", Goals).current == "gather wood"
        await gg.step(ctx)  # its own new goal is no news: nothing changed
        await gg.step(ctx)
        assert len(model.calls) == 1 and gg.gate is not None and gg.gate.held == 2
        chat = Utterance(speaker="Bob", text="What a nice morning.", to=None, at=wall_time())
        st.set("conversation", Conversation(lines=(chat,)), writer="talking")
        fed = FED.model_copy(deep=True)
        fed.observation.inventory["oak_log"] = fed.observation.inventory.get("oak_log", 0) + 1
        st.set("perception", fed, writer="perception")
        await gg.step(ctx)  # a line that asks nothing, one more log: no news for the goal
        assert len(model.calls) == 1
        line = Utterance(speaker="Bob", text="I need stone, anyone?", to=None, at=wall_time())
        st.set("conversation", Conversation(lines=(chat, line)), writer="talking")
        await gg.step(ctx)  # heard a request: asked again
        assert len(model.calls) == 2
        off = GoalGeneration(Schedule(cadence=5.0), GoalOptions(ask_on_change=False))
        ctx2 = module_context(svc, off, agent="Ann")
        ctx2.brain = ctx.brain
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
