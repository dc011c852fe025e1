"""Planning: a feasible plan from the agent's own inventory and sight; stored in the state."""

from __future__ import annotations

import random

from agent_runtime.app.testing import local_services, module_context
from agent_runtime.interfaces import Schedule
from agent_runtime.state.sections import Goals, Plan
from modules.heuristics.planning import MAX_STEPS, MIN_STEPS, plan
from modules.planning import Planning
from modules.views import PlanView
from tests.modules.helpers import agent_state


def test_plan_walks_the_tech_tree() -> None:
    out = plan(PlanView(name="Ann", goal="craft tools", kind="craft_tools"), random.Random(0))
    assert MIN_STEPS <= len(out.steps) <= MAX_STEPS
    skills = [s.skill for s in out.steps]
    assert skills[0] == "collect" and "craft" in skills
    assert out.steps[0].args["block"] == "log"  # no log kind in sight: any log will do


def test_seen_logs_are_preferred() -> None:
    out = plan(
        PlanView(name="Ann", goal="wood", kind="gather_wood", seen={"birch_log": 4.0}),
        random.Random(0),
    )
    assert out.steps[0].args["block"] == "birch_log"


async def test_planning_module_writes_a_plan_for_the_goal() -> None:
    async with local_services() as svc:
        st = agent_state(svc, goals=Goals(current="gather wood", kind="gather_wood"))
        pl = Planning(Schedule(cadence=60.0))
        await pl.step(module_context(svc, pl, agent="Ann"))
        p = st.get("plan", Plan)
        assert p.goal == "gather wood" and p.steps and p.steps[0].skill is not None
        assert p.brain == "heuristic"


def test_an_explorer_gathers_what_it_sees_and_has_not_got() -> None:
    from modules.techtree import explore_step

    assert explore_step({}, {"oak_log": 3.0, "iron_ore": 5.0}).call.args == {
        "block": "oak_log",
        "count": 2,
    }
    assert explore_step({"oak_log": 1}, {"oak_log": 3.0}).call.skill == "craft"
    assert explore_step({}, {}).call.skill == "explore"
