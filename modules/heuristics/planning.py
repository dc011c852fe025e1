"""Planning's heuristic policy: simulate the tech tree forward from the agent's own inventory.

Each chosen step's expected inventory change is applied before asking for the next
step, so the plan is a feasible sequence (logs -> planks -> table -> sticks -> pickaxe ...).
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, Field

from agent_runtime.world import SkillCall
from modules.knowledge import LOGS, PLANKS, RECIPES, expected_gain
from modules.techtree import next_step
from modules.views import PlanView

__all__ = ["MAX_STEPS", "MIN_STEPS", "PlanOut", "PlanStepOut", "plan", "substeps_for"]

MIN_STEPS, MAX_STEPS = 5, 8


class PlanStepOut(BaseModel):
    text: str = Field(max_length=160)
    skill: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    substeps: list[str] = Field(default_factory=list, max_length=5)


class PlanOut(BaseModel):
    steps: list[PlanStepOut] = Field(min_length=1, max_length=MAX_STEPS)


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


def plan(view: PlanView, rng: random.Random) -> PlanOut:
    """The heuristic planning policy: ``(view, rng) -> PlanOut``."""
    steps: list[PlanStepOut] = []
    sim = dict(view.inventory)
    last: SkillCall | None = None
    for _ in range(MAX_STEPS):
        st = next_step(view.kind, sim, view.seen)
        if last == st.call and st.call.skill in ("idle", "explore"):
            break
        steps.append(
            PlanStepOut(
                text=st.text,
                skill=st.call.skill,
                args=dict(st.call.args),
                substeps=substeps_for(st.call),
            )
        )
        sim, last = _apply(sim, st.call), st.call
    while len(steps) < MIN_STEPS:
        steps.append(_filler(view.kind))
    return PlanOut(steps=steps)


def _filler(kind: str) -> PlanStepOut:
    """A step that pads a short plan: more of the activity itself, never a duty the agent
    did not choose (a lone explorer has no villagers to check in with)."""
    if kind in ("explore", "art"):
        return PlanStepOut(
            text="explore further", skill="explore", args={"distance": 48}, substeps=[]
        )
    return PlanStepOut(text="look around and take stock", skill="idle", args={"seconds": 3})
