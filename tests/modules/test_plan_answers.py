"""A model's step plan writes a step repeated back to back once, with ``times`` (issue 30,
part J: fewer completion tokens); the planner lays out each repeat as its own step."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest

from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.llm.tokens import estimate_tokens
from agent_runtime.state.sections import Plan
from modules.heuristics.planning import MAX_ENTRIES, PlanOut, PlanStepOut
from modules.plan_answers import ChunksOut, StepOut, StepsOut, compact_heuristic, merged, to_plan
from tests.modules.planning_helpers import close, planner, seeing

STONE = StepOut(
    text="collect 4 stone for building",
    skill="collect",
    args={"block": "stone", "count": 4},
    minutes=12,
)
PLANKS = StepOut(text="make planks", skill="craft", args={"item": "oak_planks"}, minutes=5)


def test_a_run_of_one_step_is_written_once_and_laid_out_again() -> None:
    answer = StepsOut(steps=[STONE, STONE, STONE, PLANKS, STONE])
    short = merged(answer)
    assert [(s.text, s.times) for s in short.steps] == [
        (STONE.text, 3),
        (PLANKS.text, 1),
        (STONE.text, 1),
    ]
    assert estimate_tokens(short.model_dump_json()) < estimate_tokens(answer.model_dump_json())
    plan = to_plan(short)
    assert [s.text for s in plan.steps] == [s.text for s in answer.steps]
    assert plan.steps[2].args == {"block": "stone", "count": 4} and plan.steps[2].minutes == 12


def test_times_is_bounded_by_the_plans_length() -> None:
    many = StepsOut(steps=[STONE.model_copy(update={"times": MAX_ENTRIES}), PLANKS])
    assert len(to_plan(many).steps) == MAX_ENTRIES
    assert len(merged(StepsOut(steps=[STONE] * MAX_ENTRIES)).steps) == 1
    chunks = ChunksOut.model_validate({"steps": [{"text": "mine", "minutes": 60}]})
    assert [c.text for c in to_plan(chunks).steps] == ["mine"]


def test_the_heuristic_content_is_written_in_the_same_compact_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The simulated endpoint replies with the heuristic's answer in the model's format: its
    repeated steps merged too (what a model is asked to write)."""

    def four_times(view: Any, rng: random.Random) -> PlanOut:
        del view, rng
        return PlanOut(steps=[PlanStepOut(**STONE.model_dump(exclude={"times"}))] * 4)

    monkeypatch.setattr("modules.plan_answers.heuristic_plan", four_times)
    got = compact_heuristic(StepsOut)(cast(Any, None), random.Random(0))
    assert isinstance(got, StepsOut) and [s.times for s in got.steps] == [4]


async def test_the_planner_lays_out_a_repeated_step_from_a_model() -> None:
    day = ChunksOut.model_validate(
        {"steps": [{"text": f"chunk {i}", "minutes": 120, "kind": "build"} for i in range(6)]}
    )
    hours = ChunksOut.model_validate({"steps": [{"text": "quarry stone", "minutes": 60}]})
    steps = StepsOut(steps=[STONE.model_copy(update={"times": 4}), PLANKS])
    st, ctx, _clock, pl = await planner(perception=seeing("stone"))
    try:
        model = ScriptedLanguageModel([day, hours, steps])
        ctx.brain = Brain(model, module="planning", agent="Ann")
        await pl.step(ctx)
        p = st.get("plan", Plan)
        assert [s.text for s in p.steps] == [STONE.text] * 4 + [PLANKS.text]
        assert [round(s.start - p.steps[0].start, 2) for s in p.steps] == [0, 0.2, 0.4, 0.6, 0.8]
        assert all(s.skill is not None and s.skill.skill == "collect" for s in p.steps[:4])
        asked = "\n".join(m.content for m in model.calls[-1].messages)
        assert '"times"' in asked
    finally:
        await close(ctx)
