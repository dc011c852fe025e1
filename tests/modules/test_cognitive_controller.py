"""The Cognitive Controller: typed decisions from the bottleneck view, requests granted or
refused, perceived deposit requests paid from the agent's own reading and opinion, and
commitment (a running skill is kept unless something perceived warrants a change)."""

from __future__ import annotations

import random

import pytest

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Heard
from agent_runtime.clock import wall_time
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
    PersonView,
    Plan,
    PlanStep,
    Social,
    Utterance,
    UtteranceKind,
)
from agent_runtime.world import WALK_BLOCKS_PER_S, Observation, SkillCall, SkillOutcome, Vec3
from modules.controller.decisions import ControllerOut
from modules.controller.module import CognitiveController
from modules.heuristics.controller import decide, inventory
from tests.modules.helpers import NOW, bview, topic


def rng(seed: int = 0) -> random.Random:
    return random.Random(seed)


OPEN = (
    "Tax season 3 is open for 20 seconds: deposit 20% of your inventory into the community "
    "chests at (12, 64, -3) and (14, 64, -3)."
)


def inv(items: dict[str, int], at: float = NOW) -> Perception:
    return Perception(observation=Observation(inventory=items, at=at))


def asked(text: str, at: float = NOW - 1) -> Conversation:
    return Conversation(lines=(Utterance(speaker="Bob", text=text, to="Ann", at=at),))


def test_grants_a_request_it_can_and_wants_to_fulfil() -> None:
    v = bview(
        perception=inv({"bread": 3, "oak_log": 2}),
        social=Social(people={"Bob": PersonView(name="Bob", sentiment=6)}),
        conversation=asked("Ann, could you give me some bread?"),
    )
    out = decide(v, random.Random(0))
    assert out.kind is IntentKind.GIVE and out.skill == "give"
    assert out.args == {"player": "Bob", "item": "bread", "count": 1}
    assert out.say is not None and out.say.kind is UtteranceKind.AGREE_GIVE
    assert (out.say.to, out.say.item, out.say.count) == ("Bob", "bread", 1)


def test_refuses_when_it_has_nothing_or_dislikes() -> None:
    none = decide(
        bview(perception=inv({"oak_log": 2}), conversation=asked("Ann, can I have bread?")),
        random.Random(0),
    )
    assert none.skill is None and none.say is not None
    assert none.say.kind is UtteranceKind.HAVE_NONE and none.say.item == "bread"
    dislike = decide(
        bview(
            perception=inv({"bread": 3}),
            social=Social(people={"Bob": PersonView(name="Bob", sentiment=1)}),
            conversation=asked("Ann, give me bread"),
        ),
        random.Random(0),
    )
    assert dislike.skill is None and dislike.say is not None
    assert dislike.say.kind is UtteranceKind.REFUSE


def test_an_answered_line_is_not_answered_again() -> None:
    def greets_bob(conv: Conversation) -> bool:
        out = decide(bview(perception=inv({}), conversation=conv), random.Random(0))
        return out.say is not None and out.say.kind is UtteranceKind.GREET and out.say.to == "Bob"

    # the same line, unanswered, is greeted back: so the check below can fail
    assert greets_bob(asked("Hello Ann!"))
    answered = asked("Hello Ann!").model_copy(update={"spoke_to": {"Bob": NOW - 0.5}})
    assert not greets_bob(answered)


def test_pays_its_own_share_of_a_perceived_request_into_the_named_chest() -> None:
    conv = Conversation(
        lines=(Utterance(speaker="Mayor", text=OPEN, at=NOW - 2, announcement=True),)
    )
    v = bview(perception=inv({"oak_log": 10, "bread": 5}), conversation=conv)
    out = decide(v, random.Random(0))
    assert out.kind is IntentKind.DEPOSIT
    assert out.args == {"item": "oak_log", "count": 2, "x": 12.0, "y": 64.0, "z": -3.0}
    # after depositing logs (its own action log says so) the next kind is bread, once
    done = Action(
        log=(
            ActionLogEntry(
                decision_id="d1",
                call=SkillCall(skill="deposit", args={"item": "oak_log", "count": 2}),
                outcome=SkillOutcome(skill="deposit", success=True, ended_at=NOW - 0.5),
                started_at=NOW - 1,
            ),
        )
    )
    v2 = bview(perception=inv({"oak_log": 8, "bread": 5}), conversation=conv, action=done)
    out2 = decide(v2, random.Random(0))
    assert out2.skill == "deposit" and out2.args["item"] == "bread" and out2.args["count"] == 1


#: Ann in a village that talks about the tax (the tax experiment's topic, in her Identity)
IN_TAX_VILLAGE = Identity(name="Ann", community_goal="Thrive.", topics=(topic("tax"),))


def test_the_share_follows_the_agents_own_opinion() -> None:
    conv = Conversation(lines=(Utterance(speaker="Mayor", text=OPEN, at=NOW - 2),))
    counts = {}
    for opinion in (-1.0, 0.0, 1.0):
        v = bview(
            identity=IN_TAX_VILLAGE,
            perception=inv({"cobblestone": 40}),
            conversation=conv,
            social=Social(opinions={"tax": opinion}),
        )
        counts[opinion] = decide(v, random.Random(0)).args.get("count", 0)
    assert counts[-1.0] < counts[0.0] < counts[1.0]
    assert counts[0.0] == 8  # 20% of 40, as read


def test_a_closed_or_old_request_is_not_paid() -> None:
    closed = Conversation(
        lines=(
            Utterance(speaker="Mayor", text=OPEN, at=NOW - 5),
            Utterance(speaker="Mayor", text="Tax season 3 is closed.", at=NOW - 1),
        )
    )
    v = bview(identity=IN_TAX_VILLAGE, perception=inv({"oak_log": 10}), conversation=closed)
    assert decide(v, random.Random(0)).kind is not IntentKind.DEPOSIT
    old = Conversation(lines=(Utterance(speaker="Mayor", text=OPEN, at=NOW - 300),))
    out = decide(bview(perception=inv({"oak_log": 10}), conversation=old), random.Random(0))
    assert out.kind is not IntentKind.DEPOSIT


def test_keeps_a_running_skill_without_reason() -> None:
    running = SkillCall(skill="collect", args={"block": "oak_log", "count": 4})
    v = bview(
        perception=inv({}),
        action=Action(running=running, started_at=NOW - 3),
        goals=Goals(current="mine", kind="mine", set_at=NOW - 100),
    )
    out = decide(v, random.Random(0))
    assert out.kind is IntentKind.CONTINUE and out.skill is None


def test_perceiving_nothing_it_runs_no_skill() -> None:
    """A failed observation (a loaded bridge) is waited out without an idle skill."""
    blind = Perception(observation=Observation(connected=False))
    out = decide(bview(perception=blind, goals=Goals(current="explore", kind="explore")), rng())
    assert out.kind is IntentKind.WAIT and out.skill is None


def _done(call: SkillCall, ok: bool = True, reason: str = "") -> ActionLogEntry:
    outcome = SkillOutcome(skill=call.skill, success=ok, reason=reason, ended_at=NOW - 1)
    return ActionLogEntry(decision_id="d", call=call, outcome=outcome, started_at=NOW - 5)


def test_a_plan_step_just_done_is_not_done_again() -> None:
    """Planning marks a step done at its own next step: until then the controller does not
    take the step it has just carried out for the next one."""
    table = SkillCall(skill="craft", args={"item": "crafting_table", "count": 1})
    plan = Plan(goal="explore", steps=(PlanStep(text="craft crafting table", skill=table),))
    v = bview(
        perception=inv({"crafting_table": 1, "oak_planks": 4}),
        goals=Goals(current="explore", kind="explore"),
        plan=plan,
        action=Action(log=(_done(table),)),
    )
    assert all(
        decide(v, rng(i)).skill != "craft" or decide(v, rng(i)).args != table.args
        for i in range(20)
    )
    fresh = bview(
        perception=inv({"oak_planks": 4}), goals=Goals(current="explore", kind="explore"), plan=plan
    )
    assert any(decide(fresh, rng(i)).args == table.args for i in range(20))


def _made(call: SkillCall, delta: dict[str, int], started: float, ended: float) -> ActionLogEntry:
    outcome = SkillOutcome(
        skill=call.skill, success=True, inventory_delta=delta, started_at=started, ended_at=ended
    )
    return ActionLogEntry(decision_id="d", call=call, outcome=outcome, started_at=started)


def test_a_craft_just_reported_is_not_repeated_before_perception_catches_up() -> None:
    """The controller wakes on the skill's end, perception on its own second: the changes
    the body reported after the inventory seen count until it shows them."""
    table = SkillCall(skill="craft", args={"item": "crafting_table", "count": 1})
    made = _made(table, {"crafting_table": 1, "oak_planks": -4}, NOW - 1.5, NOW - 1)
    goals = Goals(current="explore", kind="explore")
    stale = bview(perception=inv({"oak_planks": 6}, at=NOW - 2), goals=goals,
                  action=Action(log=(made,)))  # fmt: skip
    assert inventory(stale) == {"crafting_table": 1, "oak_planks": 2}
    assert all(decide(stale, rng(i)).args != table.args for i in range(10))
    seen = bview(
        perception=inv({"crafting_table": 1, "oak_planks": 2}, at=NOW - 0.5),
        goals=goals,
        action=Action(log=(made,)),
    )
    assert inventory(seen) == {"crafting_table": 1, "oak_planks": 2}  # not counted twice
    ore = SkillCall(skill="collect", args={"block": "iron_ore", "count": 2})
    dug = _made(ore, {"iron_ore": 2}, NOW - 8, NOW - 1)
    half = bview(perception=inv({"iron_ore": 1}, at=NOW - 3), goals=goals,
                 action=Action(log=(dug,)))  # fmt: skip
    assert inventory(half) == {"iron_ore": 2}  # one pickup seen of two: at least two


def test_every_change_since_it_looked_counts_not_only_the_last() -> None:
    """Planks, a table, planks again within a second, the inventory seen from before them
    all: the table made two actions ago is still held (an explorer crafted a table four
    times in a row while only the last action's change was counted)."""
    planks = SkillCall(skill="craft", args={"item": "spruce_planks", "count": 1})
    table = SkillCall(skill="craft", args={"item": "crafting_table", "count": 1})
    log = (
        _made(planks, {"spruce_log": -1, "spruce_planks": 4}, NOW - 2.0, NOW - 1.9),
        _made(table, {"spruce_planks": -4, "crafting_table": 1}, NOW - 1.8, NOW - 1.5),
        _made(planks, {"spruce_log": -1, "spruce_planks": 4}, NOW - 1.4, NOW - 1.2),
    )
    v = bview(perception=inv({"spruce_log": 4}, at=NOW - 2.5),
              goals=Goals(current="explore", kind="explore"), action=Action(log=log))  # fmt: skip
    assert inventory(v) == {"spruce_log": 2, "spruce_planks": 4, "crafting_table": 1}
    assert all(decide(v, rng(i)).args != table.args for i in range(20))


def test_recovers_from_what_the_body_said_and_looks_elsewhere_after_repeated_failures() -> None:
    stick = SkillCall(skill="craft", args={"item": "stick", "count": 1})
    short = _done(stick, False, "missing ingredients: 1 oak_planks")
    v = bview(
        perception=inv({"oak_planks": 1, "birch_log": 2}),
        goals=Goals(current="craft tools", kind="craft_tools"),
        action=Action(log=(short,)),
    )
    out = decide(v, rng())
    assert out.kind is IntentKind.RECOVER and out.args == {"item": "birch_planks", "count": 1}
    many = bview(  # four failures in a row
        perception=inv({"oak_planks": 1}),
        goals=Goals(current="craft tools", kind="craft_tools"),
        action=Action(log=(short,) * 4),
    )
    assert decide(many, rng()).skill == "explore"  # not a pause: try elsewhere
    walk = SkillCall(skill="explore", args={"distance": 48})
    stuck = _done(walk, False, "no path: could not explore 48 blocks in 4 directions")
    boxed = bview(
        perception=inv({}),
        goals=Goals(current="explore", kind="explore"),
        action=Action(log=(short, short, short, stuck)),
    )
    assert decide(boxed, rng()).skill == "idle"  # it cannot even walk away: pause


async def _controller_step(**sections: object) -> tuple[Decision, list[dict[str, object]]]:
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        for name, value in sections.items():
            owner = {
                "perception": "perception",
                "action": "skill_execution",
                "conversation": "talking",
                "goals": "goal_generation",
                "social": "social_awareness",
            }[name]
            st.set(name, value, writer=owner)  # type: ignore[arg-type]
        seen: list[dict[str, object]] = []
        svc.events.add_listener(seen.append)
        cc = CognitiveController(Schedule(cadence=3.0, triggers=frozenset({"topic:heard"})))
        ctx = module_context(svc, cc, agent="Ann")
        await svc.bus.publish(
            topics.agent(svc.run_id, "Ann", "heard"), Heard(sender="x", message="y")
        )
        await cc.step(ctx)
        return st.get("decision", Decision), seen


async def test_controller_publishes_a_typed_decision() -> None:

    d, seen = await _controller_step(
        perception=inv({"bread": 3}),
        conversation=Conversation(
            lines=(Utterance(speaker="Bob", text="Ann, give me bread", to="Ann", at=wall_time()),)
        ),
    )
    assert d.kind is IntentKind.GIVE and d.skill is not None and d.skill.skill == "give"
    assert d.say is not None and d.say.kind is UtteranceKind.AGREE_GIVE and d.brain == "heuristic"
    ev = [e for e in seen if e["type"] == "decision"]
    assert ev and ev[0]["kind"] == "give"


async def test_an_open_request_preempts_a_running_skill_and_says_why() -> None:

    now = wall_time()
    d, seen = await _controller_step(
        perception=inv({"oak_log": 10}),
        action=Action(
            running=SkillCall(skill="explore", args={"distance": 48}), started_at=now - 5
        ),
        conversation=Conversation(lines=(Utterance(speaker="Mayor", text=OPEN, at=now - 1),)),
    )
    assert d.skill is not None and d.skill.skill == "deposit"
    preempted = [e for e in seen if e["type"] == "skill_preempted"]
    assert len(preempted) == 1 and preempted[0]["reason"] == "deposit_request"
    assert not any(e["type"] == "decision_cancelled" for e in seen)


async def test_a_replacement_on_its_way_is_not_sent_or_counted_twice() -> None:

    now = wall_time()
    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", inv({"oak_log": 10}), writer="perception")
        running = Action(
            running=SkillCall(skill="explore", args={"distance": 48}), started_at=now - 5
        )
        st.set("action", running, writer="skill_execution")
        conv = Conversation(lines=(Utterance(speaker="Mayor", text=OPEN, at=now - 1),))
        st.set("conversation", conv, writer="talking")
        seen: list[dict[str, object]] = []
        svc.events.add_listener(seen.append)
        cc = CognitiveController(Schedule(cadence=3.0))
        ctx = module_context(svc, cc, agent="Ann")
        for _ in range(3):  # the body has not cancelled the explore yet
            await cc.step(ctx)
        assert sum(e["type"] == "skill_preempted" for e in seen) == 1
        assert sum(e["type"] == "decision" for e in seen) == 1


async def test_the_view_is_built_again_only_after_a_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reflex checks while the model thinks read the view again and again: with nothing
    written since, the controller reuses the last view (with the time moved on)."""
    import modules.controller.module as cc_module
    from agent_runtime.bottleneck import build_view as real

    async with local_services() as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        cc = CognitiveController(Schedule(cadence=3.0))
        ctx = module_context(svc, cc, agent="Ann")
        built: list[int] = []

        def counting(*a: object, **kw: object) -> object:
            built.append(1)
            return real(*a, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(cc_module, "build_view", counting)
        first = cc.view(ctx)
        second = cc.view(ctx)
        assert len(built) == 1 and second.sections == first.sections
        assert second.now >= first.now
        st.set("goals", Goals(current="farm wheat", kind="farm"), writer="goal_generation")
        third = cc.view(ctx)
        assert len(built) == 2 and third.goals.current == "farm wheat"


def _at(x: float, items: dict[str, int]) -> Perception:
    return Perception(
        observation=Observation(inventory=items, at=NOW, position=Vec3(x=x, y=64, z=-3))
    )


def test_it_does_not_set_out_for_a_chest_it_cannot_reach_in_the_window() -> None:
    """From its own position and the window it heard: 20 s at the planned walking pace."""
    conv = Conversation(
        lines=(Utterance(speaker="Mayor", text=OPEN, at=NOW - 2, announcement=True),)
    )
    near = decide(bview(perception=_at(14 + 10, {"oak_log": 10}), conversation=conv), rng())
    assert near.skill == "deposit", near
    reach = (20 - 2) * WALK_BLOCKS_PER_S  # blocks it can walk before the window closes
    edge = decide(bview(perception=_at(14 + reach - 2, {"oak_log": 10}), conversation=conv), rng())
    assert edge.skill == "deposit", edge
    far = decide(bview(perception=_at(14 + reach + 2, {"oak_log": 10}), conversation=conv), rng())
    assert far.skill != "deposit" and far.kind is not IntentKind.DEPOSIT, far


def test_a_chest_it_could_not_get_to_is_not_tried_again_for_that_request() -> None:
    conv = Conversation(
        lines=(Utterance(speaker="Mayor", text=OPEN, at=NOW - 4, announcement=True),)
    )
    call = SkillCall(
        skill="deposit", args={"item": "oak_log", "count": 2, "x": 12, "y": 64, "z": -3}
    )

    def after(failure: str) -> ControllerOut:
        log = ActionLogEntry(
            decision_id="d1", call=call, started_at=NOW - 3,
            outcome=SkillOutcome(skill="deposit", success=False, failure=failure,
                                 reason="why", ended_at=NOW - 1),
        )  # fmt: skip
        v = bview(
            perception=inv({"oak_log": 10, "bread": 5}),
            conversation=conv,
            action=Action(log=(log,)),
        )
        return decide(v, rng())

    # a chest that refused a click: the next kind is still paid (the body got there)
    assert after("server_refused").skill == "deposit"
    # no way there, or stuck on the way: not again for this request
    for failure in ("target_out_of_reach", "stuck"):
        assert after(failure).kind is not IntentKind.DEPOSIT, failure
