"""The controller's prompt: the bottleneck view's text, written once from its typed data
within the bottleneck's budget (``agent_runtime/bottleneck_text.py``), the sections that
change least first so a provider's prefix cache serves the start of an agent's next prompt;
and the heuristic policy answering the LLM policy's type."""

from __future__ import annotations

import random

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.state.sections import IntentKind
from agent_runtime.world import SkillCall
from modules.controller.decisions import ControllerChoice, ControllerOut
from modules.heuristics.controller import decide as heuristic_decide
from modules.techtree import same_step

__all__ = ["PROMPT_ORDER", "heuristic_choice", "out_call", "prompt_view"]

#: the sections' order in the prompt, what changes least first (who the agent is, its goal
#: and plan) and what changes on every step last (conversation, position and inventory), so
#: that a provider's prefix cache serves the start of an agent's next prompt; sections not
#: named here come before ``perception`` in the bottleneck's order
PROMPT_ORDER = (
    "identity",
    "goals",
    "plan",
    "reflection",
    "social",
    "working_memory",
    "awareness",
    "action",
    "conversation",
    "perception",
)


def prompt_view(view: BottleneckView) -> str:
    """The view's text for the prompt: its sections as the bottleneck wrote them from their
    typed data, within its budget, in :data:`PROMPT_ORDER`; the plan without its goal when
    the goal section says the same."""
    rank = {name: float(i) for i, name in enumerate(PROMPT_ORDER)}
    last = rank["perception"]
    order = sorted(
        (n for n, sec in view.sections.items() if sec.text),
        key=lambda n: rank.get(n, last - 0.5),
    )
    parts = []
    for name in order:
        text = view.sections[name].text
        if name == "plan" and view.plan.goal and view.plan.goal == view.goals.current:
            text = text.removeprefix(f"Plan for: {view.plan.goal}").lstrip("\n")
        parts.append(f"## {name}\n{text}")
    return "\n\n".join(parts)


#: kinds of a decision off the plan after which the heuristic goes back to its plan: a step
#: of its goal (it follows its plan 7 times in 10 anyway) or a recovery from a failure (the
#: failed step is the plan's current one until planning revises it)
AFTER_THEN_PLAN = frozenset({IntentKind.WORK, IntentKind.RECOVER})


def heuristic_choice(view: BottleneckView, rng: random.Random) -> ControllerChoice:
    """The heuristic policy, answering the LLM policy's type (its exact output kept); a
    decision to carry out its plan's current step, or to work towards its goal or recover
    first while its plan has a step with a skill, is a standing one (``follow_plan``: once
    its skill succeeds, the plan's step goes on unasked)."""
    out = heuristic_decide(view, rng)
    choice = ControllerChoice.of(out)
    step = view.plan.current_skill
    choice.follow_plan = (
        out.skill is not None
        and step is not None
        and (same_step(step, out_call(out)) or out.kind in AFTER_THEN_PLAN)
    )
    return choice


def out_call(out: ControllerOut) -> SkillCall:
    return SkillCall(skill=out.skill or "idle", args=dict(out.args))
