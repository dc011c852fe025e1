"""A plan's entries laid out in game time: the window a level is planned for, a policy's
entries fitted to their level's count and durations, and the chunk under way at an hour."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import ValidationError

from agent_runtime.state.sections import PlanStep
from agent_runtime.world import SKILLS, SkillCall, validate_skill
from modules.heuristics.planning import MAX_STEPS, MIN_STEPS, STEP_MINUTES, PlanStepOut
from modules.views import PlanView

__all__ = ["MIN_WINDOW_H", "Level", "chunk_end", "first_open", "fit", "window"]

Level = Literal["day", "hour", "step"]
MIN_WINDOW_H = 0.25  # a window to plan is at least 15 game minutes


def chunk_end(s: PlanStep) -> float:
    return s.start + s.minutes / 60.0


def window(
    view: PlanView, level: Level, chunk: PlanStep, kind: str, reason: str, **extra: object
) -> PlanView:
    """The view for splitting ``chunk`` at ``level``: from now to the chunk's end (at least
    :data:`MIN_WINDOW_H`)."""
    now = view.hour
    update = {
        "level": level,
        "start": now,
        "end": max(chunk_end(chunk), now + MIN_WINDOW_H),
        "chunk": chunk.text,
        "chunk_kind": kind,
        "reason": reason,
        **extra,
    }
    return view.model_copy(update=update)


def fit(entries: Sequence[PlanStepOut], level: Level, start: float, end: float) -> list[PlanStep]:
    """A policy's entries fitted to their level, laid end to end from ``start``.

    ``day``: 5-8 chunks (the longest split in two while fewer), durations scaled to fill
    ``start``..``end``; ``hour``: durations scaled to fill the window; ``step``: 5-15 minutes
    each, the steps that start before ``end`` (at least one)."""
    items = list(entries)[: MAX_STEPS if level == "day" else None]
    if level == "day":
        while len(items) < MIN_STEPS:
            i = max(range(len(items)), key=lambda j: items[j].minutes or 60.0)
            half = (items[i].minutes or 60.0) / 2
            twin = items[i].model_copy(update={"minutes": half})
            items[i : i + 1] = [twin, twin]
    given = [e.minutes or 60.0 for e in items]
    if level == "step":
        minutes = [min(STEP_MINUTES[1], max(STEP_MINUTES[0], m)) for m in given]
    else:
        scale = max(0.0, end - start) * 60.0 / sum(given)
        minutes = [m * scale for m in given]
    out: list[PlanStep] = []
    at = start
    for e, m in zip(items, minutes, strict=True):
        if level == "step" and out and at >= end:
            break
        out.append(
            PlanStep(
                text=e.text,
                skill=_call(e) if level == "step" else None,
                substeps=tuple(e.substeps),
                start=at,
                minutes=m,
                kind=e.kind,
            )
        )
        at += m / 60.0
    return out


def _call(e: PlanStepOut) -> SkillCall | None:
    if e.skill not in SKILLS:
        return None
    try:
        return validate_skill(SkillCall(skill=e.skill, args=e.args))
    except ValidationError:
        return None


def first_open(chunks: tuple[PlanStep, ...], hour: float, first: int) -> int | None:
    """The first chunk from ``first`` on that has not ended at ``hour``."""
    return next((i for i in range(first, len(chunks)) if chunk_end(chunks[i]) > hour), None)
