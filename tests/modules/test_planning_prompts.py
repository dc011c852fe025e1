"""Planning's prompts say each fact once, in few tokens (issue 30 part F): the time a window
starts is now (said once), the day plan's chunks without the day on every line, no fence
around no lines heard; every fact of the view is in the prompt."""

from __future__ import annotations

import sys

import pytest

from agent_runtime import prompts
from agent_runtime.llm.tokens import estimate_tokens
from agent_runtime.state.sections import Goals, Identity, Perception, Utterance
from agent_runtime.world import SKILLS, NotableBlock, Observation, Vec3
from modules.planning import PROMPTS, prompt_variables
from modules.views import PlanView, clock_text, plan_view

#: prompt tokens (system + user, ~4 characters a token) on this fixture, per level: before
#: part F (the prompt files of 625576c, the day on every day-plan line, a fence around no
#: lines heard) day 343, hour 255, steps 361; after it 298, 230, 328
#: step: +10 for the answer's "times" (a step repeated back to back written once: fewer
#: completion tokens, each four times an input token's price; issue 30 part J)
TOKENS_MAX = {"day": 310, "hour": 240, "step": 345}
DAY = ((0.1, 180, "Gather oak logs"), (3.1, 120, "Craft a table"), (5.1, 240, "Mine stone"))


def view(level: str, heard: tuple[Utterance, ...] = ()) -> PlanView:
    ident = Identity(
        name="Ann",
        traits=("You are curious.", "You are cheerful."),
        community_goal="Build a thriving village together.",
    )
    obs = Observation(
        inventory={"oak_log": 3, "bread": 2},
        blocks=tuple(
            NotableBlock(name=b, position=Vec3(x=3, y=64, z=3), distance=4.0)
            for b in ("oak_log", "stone")
        ),
    )
    v = plan_view(ident, Goals(current="gather wood"), Perception(observation=obs), tuple(SKILLS))
    return v.model_copy(
        update={
            "hour": 0.1,
            "level": level,
            "start": 0.1,
            "end": 24.0 if level == "day" else 3.1,
            "chunk": "Gather oak logs",
            "day_plan": tuple(f"{clock_text(s)[-5:]} ({m / 60:.1f} h): {t}" for s, m, t in DAY),
            "reason": "Bob asked for bread",
            "failures": ("collect oak_log failed: no path",),
            "heard": heard,
        }
    )


def render(v: PlanView) -> str:
    system, user = prompts.render(
        prompts.prompt_path("modules", PROMPTS[v.level]), prompt_variables(v)
    )
    assert "$" not in system.content + user.content
    return f"{system.content}\n{user.content}"


@pytest.mark.parametrize("level", ["day", "hour", "step"])
def test_each_level_says_its_facts_in_few_tokens(level: str) -> None:
    text = render(view(level))
    tokens = estimate_tokens(text)
    print(f"planning {level}: {tokens} tokens", file=sys.stderr)
    assert tokens <= TOKENS_MAX[level]
    assert text.count("day 1, 06:06") == 1  # now, the window's start: said once
    end = "day 2, 06:00" if level == "day" else "day 1, 09:06"
    assert end in text and "game minutes" in text
    facts = ["Ann", "gather wood", "oak_log x3", "stone"]
    character = "You are curious. You are cheerful."
    facts += {
        "day": [character, "Build a thriving village together.", "Bob asked for bread"],
        "hour": [character, "Gather oak logs", "06:06 (3.0 h): ", "11:06 (4.0 h): Mine stone"],
        "step": ["Gather oak logs", "Bob asked for bread", "no path", "collect, craft"],
    }[level]
    for fact in facts:
        assert fact in text, fact


def test_lines_heard_are_fenced_and_none_is_said_plainly() -> None:
    none = render(view("step"))
    assert "since the plan was last revised:\n(none)" in none and "<<<DATA\n" not in none
    said = Utterance(speaker="Bob", text="Ann, bring me bread", to="Ann", at=1.0)
    heard = render(view("step", (said,)))
    assert "<<<DATA\n" in heard and "Ann, bring me bread" in heard
