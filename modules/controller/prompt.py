"""The controller's prompt: the bottleneck view as text (each line once, the sections that
change least first, so a provider's prefix cache serves the start of an agent's next prompt),
and the heuristic policy answering the LLM policy's type."""

from __future__ import annotations

import random

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.world import SkillCall
from modules.controller.decisions import ControllerChoice, ControllerOut
from modules.heuristics.controller import decide as heuristic_decide
from modules.techtree import same_step

__all__ = ["PROMPT_ORDER", "PROMPT_VIEW_CHARS", "heuristic_choice", "out_call", "prompt_view"]

#: the view's text in the prompt (~4 characters a token): repeated lines once, then the
#: sections in the bottleneck's order while they fit (a local model reads ~10 tokens/s)
PROMPT_VIEW_CHARS = 1500
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


def prompt_view(view: BottleneckView, max_chars: int = PROMPT_VIEW_CHARS) -> str:
    """The view's text for the prompt: each section without repeated lines (the latest
    kept); the sections are chosen in the bottleneck's order while they fit (the first that
    does not fit clipped), then written in :data:`PROMPT_ORDER`."""
    parts: dict[str, str] = {}
    used = 0
    for sec in view.sections.values():
        if not sec.text:
            continue
        kept: list[str] = []
        for line in reversed(sec.text.splitlines()):
            if line not in kept:
                kept.append(line)
        text = f"## {sec.name}\n" + "\n".join(reversed(kept))
        room = max_chars - used
        if len(text) > room:
            if room > 80:
                parts[sec.name] = text[: room - 1].rstrip() + "…"
            break
        parts[sec.name] = text
        used += len(text) + 2
    rank = {name: float(i) for i, name in enumerate(PROMPT_ORDER)}
    last = rank["perception"]
    order = sorted(parts, key=lambda n: rank.get(n, last - 0.5))
    return "\n\n".join(parts[n] for n in order)


def heuristic_choice(view: BottleneckView, rng: random.Random) -> ControllerChoice:
    """The heuristic policy, answering the LLM policy's type (its exact output kept); a
    decision to carry out its plan's current step is a standing one (``follow_plan``)."""
    out = heuristic_decide(view, rng)
    choice = ControllerChoice.of(out)
    step = view.plan.current_skill
    choice.follow_plan = bool(
        out.skill is not None and step is not None and same_step(step, out_call(out))
    )
    return choice


def out_call(out: ControllerOut) -> SkillCall:
    return SkillCall(skill=out.skill or "idle", args=dict(out.args))
