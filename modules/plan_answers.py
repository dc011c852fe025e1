"""What a model writes when it plans: only the fields each level uses (completion tokens cost
four times input ones), with the ``max_tokens`` each answer gets, and the heuristic's plan in
the same form (a model's fallback)."""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from modules.heuristics.planning import MAX_ENTRIES, MAX_STEPS, PlanOut
from modules.heuristics.planning import plan as heuristic_plan
from modules.views import PlanView

__all__ = [
    "COMPACT",
    "ChunkOut",
    "ChunksOut",
    "StepOut",
    "StepsOut",
    "compact_heuristic",
    "merged",
    "to_plan",
]


class ChunkOut(BaseModel):
    """A day or hour chunk as a model writes it."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(max_length=160)
    minutes: float | None = Field(default=None, ge=1, le=24 * 60)
    kind: str = ""


class ChunksOut(BaseModel):
    """Answer of ``prompts/planning.md`` and ``planning_hours.md``."""

    model_config = ConfigDict(extra="ignore")

    steps: list[ChunkOut] = Field(min_length=1, max_length=MAX_ENTRIES)


class StepOut(BaseModel):
    """A step as a model writes it: what, which skill with which arguments, how long, and
    how many times back to back (``times``: the same step repeated is written once)."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(max_length=160)
    skill: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    minutes: float | None = Field(default=None, ge=1, le=24 * 60)
    #: the step done this many times in a row: plans repeat one step back to back ("collect 4
    #: stone for building" five times), and each written-out repeat costs ~30 completion
    #: tokens, which are over half of planning's bill
    times: int = Field(default=1, ge=1, le=MAX_ENTRIES)


class StepsOut(BaseModel):
    """Answer of ``prompts/planning_steps.md``."""

    model_config = ConfigDict(extra="ignore")

    steps: list[StepOut] = Field(min_length=1, max_length=MAX_ENTRIES)


#: a model's answer per level, and its max_tokens: room for MAX_ENTRIES entries of about 40
#: tokens (a chunk) or 60 (a step with its skill call), never the usual length
COMPACT: dict[str, tuple[type[ChunksOut] | type[StepsOut], int]] = {
    "day": (ChunksOut, 40 + 40 * MAX_STEPS),
    "hour": (ChunksOut, 40 + 40 * MAX_ENTRIES),
    "step": (StepsOut, 40 + 60 * MAX_ENTRIES),
}


def compact_heuristic(
    model: type[ChunksOut] | type[StepsOut],
) -> Any:
    """The heuristic's plan in the compact answer of ``model`` (a model's fallback): steps
    repeated back to back written once, with ``times``."""

    def policy(view: PlanView, rng: random.Random) -> ChunksOut | StepsOut:
        answer = model.model_validate(heuristic_plan(view, rng).model_dump())
        return merged(answer) if isinstance(answer, StepsOut) else answer

    return policy


def merged(answer: StepsOut) -> StepsOut:
    """``answer`` with each run of identical steps written once (``times`` the run)."""
    out: list[StepOut] = []
    for step in answer.steps:
        last = out[-1] if out else None
        if (
            last is not None
            and last.model_dump(exclude={"times"}) == step.model_dump(exclude={"times"})
            and last.times + step.times <= MAX_ENTRIES
        ):
            out[-1] = last.model_copy(update={"times": last.times + step.times})
        else:
            out.append(step)
    return StepsOut(steps=out)


def to_plan(answer: ChunksOut | StepsOut) -> PlanOut:
    """A model's compact answer as the planner's :class:`PlanOut`: each step repeated its
    ``times``, at most :data:`MAX_ENTRIES` steps in all."""
    if isinstance(answer, ChunksOut):
        return PlanOut.model_validate(answer.model_dump())
    steps = [s.model_dump(exclude={"times"}) for s in answer.steps for _ in range(s.times)]
    return PlanOut.model_validate({"steps": steps[:MAX_ENTRIES]})
