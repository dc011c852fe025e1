"""The ask gate's talk occasions (issue 30): once the agent may start a conversation again
(its own last line ``TALK_GAP_S`` old), someone in view it has not spoken to (``unmet``) or
the end of its gap with someone in view (``company``) is a reason to ask its model, also
while a skill runs; each occasion once. A standing decision survives an answer that only
talks, so the plan's next step still starts without a call."""

from __future__ import annotations

import time
from typing import Any

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.config.module_options import ControllerOptions
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.module import Schedule
from agent_runtime.state.sections import (
    Action,
    Conversation,
    Decision,
    Identity,
    IntentKind,
    Perception,
    Plan,
    PlanStep,
    Utterance,
    UtteranceKind,
)
from agent_runtime.world import NearbyPlayer, Observation, SkillCall, SkillOutcome, Vec3
from modules.controller.asking import Situation, situation, why
from modules.controller.decisions import ControllerChoice
from modules.controller.module import CognitiveController
from modules.heuristics.controller import TALK_GAP_S
from tests.modules.helpers import NOW, bview

RUNNING = Action(running=SkillCall(skill="collect", args={"block": "oak_log"}), started_at=NOW - 5)


def seeing(*names: str) -> Perception:
    players = tuple(
        NearbyPlayer(name=n, position=Vec3(x=1, y=64, z=1), distance=3.0) for n in names
    )
    return Perception(observation=Observation(food=20, health=20, players=players))


def said(to: str, at: float) -> Conversation:
    """Ann's own last line, to ``to`` at ``at``."""
    line = Utterance(speaker="Ann", text="Hi", to=to, at=at)
    return Conversation(lines=(line,), last_utterance=line, spoke_to={to: at})


def at(now: float, conversation: Conversation, *names: str) -> Situation:
    """Ann's situation at ``now`` while her skill runs, seeing ``names``."""
    view = bview(now, perception=seeing(*names), action=RUNNING, conversation=conversation)
    return situation(view, Decision())


def test_someone_not_greeted_in_view_is_a_reason_while_a_skill_runs() -> None:
    quiet = Conversation()
    alone = at(NOW, quiet)
    assert why(alone, at(NOW + 1, quiet, "Bob"), 60.0) == ["unmet"]
    met = said("Bob", NOW - 200)
    assert why(at(NOW, met), at(NOW + 1, met, "Bob"), 60.0) == []  # spoken to before
    # asked with Bob in view and not greeting him: he is no reason again
    seen = at(NOW + 1, quiet, "Bob")
    assert why(seen, at(NOW + 2, quiet, "Bob"), 60.0) == []
    assert why(seen, at(NOW + 2, quiet, "Bob", "Cleo"), 60.0) == ["unmet"]


def test_a_greeting_waits_for_the_end_of_the_agents_talk_gap() -> None:
    """Cleo comes into view while Ann's last line (to Bob) is recent: no reason yet; when
    her gap ends, Cleo (a chance she could not take) and the company are."""
    recent = said("Bob", NOW)
    before = at(NOW + 1, recent)
    assert why(before, at(NOW + 2, recent, "Cleo"), 60.0) == []
    asked_meanwhile = at(NOW + 3, recent, "Cleo")
    end = NOW + TALK_GAP_S + 1
    assert why(asked_meanwhile, at(end, recent, "Cleo"), 600.0) == ["unmet", "company"]


def test_the_end_of_the_talk_gap_with_someone_in_view_is_a_reason_once() -> None:
    recent = said("Bob", NOW)
    before = at(NOW + 10, recent, "Bob")
    end = NOW + TALK_GAP_S + 1
    assert why(before, at(end, recent, "Bob"), 600.0) == ["company"]
    assert why(before, at(end, recent), 600.0) == []  # alone
    asked = at(end, recent, "Bob")  # asked then, and said nothing
    assert why(asked, at(end + 5, recent, "Bob"), 600.0) == []


STEPS = (
    PlanStep(text="chop oaks", skill=SkillCall(skill="collect", args={"block": "oak_log"})),
    PlanStep(text="make planks", skill=SkillCall(skill="craft", args={"item": "oak_planks"})),
)


async def test_the_model_greets_while_its_standing_step_runs_and_the_plan_goes_on() -> None:
    """Bob comes into view while the standing step runs: the model is asked (``unmet``) and
    greets him, keeping the course; its standing decision still starts the next step."""
    chop = ControllerChoice(
        kind=IntentKind.WORK, skill="collect", item="oak_log", follow_plan=True, reason="plan"
    )
    greet = ControllerChoice(
        kind=IntentKind.CONTINUE,
        say=UtteranceKind.GREET,
        say_to="Bob",
        reason="Bob is new here",
    )
    answers = iter([chop, greet])
    model = ScriptedLanguageModel(responder=lambda r: next(answers), name="m")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", seeing(), writer="perception")
        st.set("plan", Plan(goal="wood", steps=STEPS, current=0), writer="planning")
        cc = CognitiveController(Schedule(cadence=3.0), ControllerOptions(follow_plan_steps=3))
        ctx = module_context(svc, cc, agent="Ann")
        ctx.shared["brain:cognitive_controller"] = Brain(
            model, module="cognitive_controller", agent="Ann"
        )
        seen: list[dict[str, Any]] = []
        svc.events.add_listener(seen.append)
        await cc.step(ctx)  # chop oaks, standing
        started = time.time()
        st.set(
            "action", Action(running=STEPS[0].skill, started_at=started), writer="skill_execution"
        )
        await cc.step(ctx)
        assert len(model.calls) == 1  # nothing new while it chops
        st.set("perception", seeing("Bob"), writer="perception")
        await cc.step(ctx)
        assert len(model.calls) == 2 and cc.gate is not None and cc.gate.asked.get("unmet") == 1
        d = st.get("decision", Decision)
        assert d.say is not None and d.say.to == "Bob" and d.skill is None
        out = SkillOutcome(skill="collect", success=True, ended_at=time.time())
        st.set("action", Action(last_outcome=out, started_at=started), writer="skill_execution")
        st.set("plan", Plan(goal="wood", steps=STEPS, current=1), writer="planning")
        await cc.step(ctx)  # chopped: planks on the standing decision, no call
        assert len(model.calls) == 2 and cc.gate.followed == 1
        assert [e["reasons"] for e in seen if e["type"] == "controller_asked"] == [
            ["first"],
            ["unmet"],
        ]
