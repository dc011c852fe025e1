"""Planning's heuristic policy, as in Generative Agents: the day in broad strokes, a chunk
of it in hours, an hour in 5-15 minute steps; and when to react and re-plan.

One function, :func:`plan` ``(view, rng) -> PlanOut``, answers all three levels of the
same :class:`~modules.views.PlanView` (``view.level``):

- ``day``: 5-8 chunks from the agent's own summary: its goal's activity (the most of the
  day), what that activity needs first (tools before mining, wood before tools), what its
  own traits favour, time with the villagers (or roaming, for one whose traits say it works
  alone), and taking stock at the end;
- ``hour``: a day chunk in hour-scale chunks, each named by the tech-tree steps it will
  take, simulated forward from its own inventory;
- ``step``: an hour chunk in 5-15 minute steps, each a skill call with its duration,
  simulated forward (logs -> planks -> table -> sticks -> pickaxe ...) from its own
  inventory and what it sees. A re-plan after a failure or a heard request starts with
  the reaction (look elsewhere; the activity that provides what was asked for).

:func:`replan_reason` is the "react or continue" check over the same view: only what the
agent itself perceived since its plan was last revised can make it re-plan.
"""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic import BaseModel, Field

from agent_runtime.world import SkillCall
from modules.heuristics.asked import is_request
from modules.heuristics.goals import classify_activity, heard_needs
from modules.knowledge import ACTIVITIES, LOGS, PLANKS, RECIPES, expected_gain
from modules.techtree import next_step
from modules.views import PlanView

__all__ = [
    "MAX_STEPS",
    "MIN_STEPS",
    "STEP_MINUTES",
    "PlanOut",
    "PlanStepOut",
    "plan",
    "replan_reason",
    "step_minutes",
    "substeps_for",
]

MIN_STEPS, MAX_STEPS = 5, 8  # chunks of a day plan
STEP_MINUTES = (5.0, 15.0)  # the finest level's durations, in game minutes
MAX_ENTRIES = 12  # 60 minutes in 5-minute steps

#: what an activity needs done first
SUPPORT = {
    "mine": "craft_tools",
    "smelt": "mine",
    "craft_tools": "gather_wood",
    "build": "gather_wood",
    "gather_wood": "craft_tools",
    "farm": "gather_wood",
    "art": "explore",
}
_SOLITARY = re.compile(r"\b(alone|solitary|loner|independent)\b", re.I)
REST = "rest"


class PlanStepOut(BaseModel):
    text: str = Field(max_length=160)
    skill: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    substeps: list[str] = Field(default_factory=list, max_length=5)
    minutes: float | None = Field(default=None, ge=1, le=24 * 60, description="duration")
    kind: str = Field(default="", description="closest activity kind (day and hour chunks)")


class PlanOut(BaseModel):
    steps: list[PlanStepOut] = Field(min_length=1, max_length=MAX_ENTRIES)


def _apply(inv: dict[str, int], call: SkillCall) -> dict[str, int]:
    out = dict(inv)
    for item, n in expected_gain(call.skill, dict(call.args)).items():
        item = LOGS[0] if item == "log" else item  # any log: simulated as the first kind
        out[item] = max(0, out.get(item, 0) + n)
    if call.skill == "craft":
        recipe = RECIPES.get(str(call.args.get("item")))
        if recipe is not None:
            for need, n in recipe.needs.items():
                if need == "planks":
                    for p in PLANKS:
                        take = min(out.get(p, 0), n)
                        out[p] = out.get(p, 0) - take
                        n -= take
                else:
                    out[need] = max(0, out.get(need, 0) - n)
    return out


def substeps_for(call: SkillCall) -> list[str]:
    a = call.args
    if call.skill == "collect":
        return [
            f"find {a.get('block')}",
            "walk there",
            "mine it with the best tool",
            "pick up the drops",
        ]
    if call.skill == "craft":
        return [
            "check the ingredients",
            "find or place a crafting table if needed",
            f"craft {a.get('item')}",
        ]
    if call.skill == "smelt":
        return ["find or place a furnace", "add fuel", f"smelt {a.get('item')}", "take the output"]
    return [call.describe()]


def step_minutes(call: SkillCall) -> float:
    """How long a step takes in game minutes (5-15): 3 a block mined, 5 a craft, ..."""
    count = call.args.get("count", 1)
    n = count if isinstance(count, int) else 1
    est = {"collect": 3.0 * n, "craft": 5.0, "smelt": 10.0, "explore": 15.0}.get(call.skill, 5.0)
    return min(STEP_MINUTES[1], max(STEP_MINUTES[0], est))


def _kind_text(kind: str, view: PlanView) -> str:
    if kind == REST:
        return "take stock of the day and rest"
    if kind == (view.kind or classify_activity(view.goal)) and view.goal:
        return f"work on my goal: {view.goal}"
    return ACTIVITIES.get(kind, (kind.replace("_", " "), ""))[0]


def _day(view: PlanView) -> list[PlanStepOut]:
    """5-8 chunks in broad strokes, with durations in proportion (the module fits them to
    the rest of the day)."""
    main = view.kind or classify_activity(view.goal)
    own = " ".join(view.traits)
    liked = classify_activity(own) if own else "explore"
    alone = bool(_SOLITARY.search(own))
    company = "explore" if alone else "socialize"
    support = SUPPORT.get(main, "explore")
    taken = {main, support, company} | ({"socialize"} if alone else set())
    side = next((k for k in (liked, "explore", "build", "gather_wood") if k not in taken), main)
    chunks = [(main, 4), (support, 3), (main, 4), (company, 2), (side, 3), (main, 4), (REST, 2)]
    if view.end - view.start < 8:  # a short rest of the day: fewer, longer strokes
        chunks = [(main, 3), (support, 2), (main, 3), (company, 1), (REST, 1)]
    return [PlanStepOut(text=_kind_text(k, view), minutes=h * 60.0, kind=k) for k, h in chunks]


def _simulate(
    kind: str, inv: dict[str, int], seen: dict[str, float], n: int
) -> list[tuple[str, SkillCall]]:
    """Up to ``n`` feasible tech-tree steps of activity ``kind``, each one's expected
    inventory change applied before the next is chosen."""
    out: list[tuple[str, SkillCall]] = []
    sim = dict(inv)
    for _ in range(n):
        if kind in (REST, "socialize"):
            text = "spend time with the villagers" if kind == "socialize" else "look around"
            call = SkillCall(skill="idle", args={"seconds": 5})
        else:
            st = next_step(kind, sim, seen)
            text, call = st.text, st.call
        if out and out[-1][1] == call and call.skill in ("idle", "explore"):
            break
        out.append((text, call))
        sim = _apply(sim, call)
    return out


def _hours(view: PlanView) -> list[PlanStepOut]:
    kind = view.chunk_kind or view.kind
    n = max(1, min(8, round(view.end - view.start)))
    sim = _simulate(kind, view.inventory, view.seen, 2 * n)
    out = []
    for i in range(n):
        pair = sim[2 * i : 2 * i + 2] or sim[-1:]
        text = ", then ".join(dict.fromkeys(t for t, _ in pair)) if pair else view.chunk
        out.append(PlanStepOut(text=text or _kind_text(kind, view), minutes=60.0, kind=kind))
    return out


def _reaction(view: PlanView) -> tuple[str, dict[str, float], list[PlanStepOut]]:
    """The activity to plan the steps of, what is in sight for it, and steps that come
    first because of the reason to re-plan."""
    kind, seen, first = view.chunk_kind or view.kind, dict(view.seen), []
    asked = heard_needs(tuple(u.text for u in view.heard))
    if view.reason.startswith("request") and asked:
        kind = asked.most_common(1)[0][0]
    elif view.reason.startswith("failure") and view.step_skill is not None:
        block = view.step_skill.args.get("block")
        if view.step_skill.skill == "collect" and isinstance(block, str):
            seen.pop(block, None)
            first.append(
                PlanStepOut(
                    text=f"look for {block.replace('_', ' ')} elsewhere",
                    skill="explore",
                    args={"distance": 32},
                    minutes=10.0,
                )
            )
    return kind, seen, first


def _steps(view: PlanView) -> list[PlanStepOut]:
    kind, seen, out = _reaction(view)
    budget = (view.end - view.start) * 60.0 - sum(s.minutes or 0 for s in out)
    for text, call in _simulate(kind, view.inventory, seen, MAX_ENTRIES - len(out)):
        if budget <= 0:
            break
        minutes = step_minutes(call)
        out.append(
            PlanStepOut(
                text=text,
                skill=call.skill,
                args=dict(call.args),
                substeps=substeps_for(call),
                minutes=minutes,
            )
        )
        budget -= minutes
    return out


def plan(view: PlanView, rng: random.Random) -> PlanOut:
    """The heuristic planning policy: ``(view, rng) -> PlanOut`` at ``view.level``."""
    if view.level == "day":
        return PlanOut(steps=_day(view))
    if view.level == "hour":
        return PlanOut(steps=_hours(view))
    return PlanOut(steps=_steps(view) or [_filler(view.chunk_kind or view.kind)])


def _filler(kind: str) -> PlanStepOut:
    """A step for an activity with nothing to do: more of the activity itself, never a duty
    the agent did not choose (a lone explorer has no villagers to check in with)."""
    if kind in ("explore", "art"):
        return PlanStepOut(
            text="explore further", skill="explore", args={"distance": 48}, minutes=15.0
        )
    return PlanStepOut(
        text="look around and take stock", skill="idle", args={"seconds": 3}, minutes=5.0
    )


def replan_reason(view: PlanView) -> str | None:
    """Why what the agent perceived conflicts with its current plan (None: keep the plan).

    "goal ..." re-plans the rest of the day; the others the steps from now."""
    if view.plan_goal and view.goal != view.plan_goal:
        return "goal: the goal changed"
    gone = [b for b in view.step_expects if b not in view.seen]
    if gone:
        return f"gone: {gone[0].replace('_', ' ')} is no longer in sight"
    if view.failures:
        return f"failure: {view.failures[-1]}"
    if any(is_request(u.text) or heard_needs((u.text,)) for u in view.heard):
        return "request: someone asked for something"
    return None
