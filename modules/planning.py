"""Planning: a coarse plan (5-8 steps) for the current goal, each step decomposed into
finer sub-steps; stored as plan memories; re-planned when the goal changes or the
controller's decisions leave the plan behind.

The heuristic planner simulates the tech tree forward: it applies each chosen
step's expected inventory change and asks for the next step, so the plan is a
feasible sequence (logs -> planks -> table -> sticks -> pickaxe -> ...).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError

from agent_runtime.interfaces import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Action, Goals, Identity, Perception, Plan, PlanStep
from agent_runtime.world import SKILLS, SkillCall, validate_skill
from modules.base import remember
from modules.brain import choose
from modules.knowledge import RECIPES, expected_gain
from modules.techtree import next_step

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
        out[item] = max(0, out.get(item, 0) + n)
    if call.skill == "craft":
        recipe = RECIPES.get(str(call.args.get("item")))
        if recipe is not None:
            for need, n in recipe.needs.items():
                if need == "planks":
                    for p in ("oak_planks", "birch_planks", "spruce_planks"):
                        take = min(out.get(p, 0), n)
                        out[p] = out.get(p, 0) - take
                        n -= take
                else:
                    out[need] = max(0, out.get(need, 0) - n)
    return out


def substeps_for(call: SkillCall) -> tuple[str, ...]:
    if call.skill == "collect":
        return (
            f"find {call.args.get('block')}",
            "walk there",
            "mine it with the best tool",
            "pick up the drops",
        )
    if call.skill == "craft":
        return (
            "check the ingredients",
            "find or place a crafting table if needed",
            f"craft {call.args.get('item')}",
        )
    if call.skill == "smelt":
        return (
            "find or place a furnace",
            "add fuel",
            f"smelt {call.args.get('item')}",
            "take the output",
        )
    return (call.describe(),)


def heuristic_plan(kind: str, inv: dict[str, int], seen: dict[str, float]) -> list[PlanStep]:
    steps: list[PlanStep] = []
    sim = dict(inv)
    for _ in range(MAX_STEPS):
        st = next_step(kind, sim, seen)
        if steps and steps[-1].skill == st.call and st.call.skill in ("idle", "explore"):
            break
        steps.append(PlanStep(text=st.text, skill=st.call, substeps=substeps_for(st.call)))
        sim = _apply(sim, st.call)
    while len(steps) < MIN_STEPS:
        steps.append(
            PlanStep(
                text="check in with nearby villagers",
                skill=SkillCall(skill="idle", args={"seconds": 5}),
            )
        )
    return steps


class Planning(Module):
    name: ClassVar[str] = "planning"
    reads: ClassVar[frozenset[str]] = frozenset(
        {"identity", "goals", "perception", "plan", "action"}
    )
    writes: ClassVar[frozenset[str]] = frozenset({"plan"})

    async def step(self, ctx: ModuleContext) -> None:
        goals = ctx.read("goals", Goals)
        plan = ctx.read("plan", Plan)
        action = ctx.read("action", Action)
        if not goals.current:
            return
        if plan.goal == goals.current and plan.steps:
            self._advance(ctx, plan, action)
            if ctx.read("plan", Plan).current < len(plan.steps):
                return
        obs = ctx.read("perception", Perception).observation
        inv = dict(obs.inventory)
        seen = {b.name: b.distance for b in obs.blocks}
        ident = ctx.read("identity", Identity)

        def heuristic() -> PlanOut:
            steps = heuristic_plan(goals.kind, inv, seen)
            return PlanOut(
                steps=[
                    PlanStepOut(
                        text=s.text,
                        skill=s.skill.skill if s.skill else None,
                        args=dict(s.skill.args) if s.skill else {},
                        substeps=list(s.substeps),
                    )
                    for s in steps
                ]
            )

        out, brain = await choose(
            ctx,
            "planning",
            PlanOut,
            {
                "name": ident.name,
                "goal": goals.current,
                "inventory": ", ".join(f"{k} x{v}" for k, v in inv.items()) or "empty",
                "seen": ", ".join(sorted(seen)) or "nothing notable",
                "skills": ", ".join(SKILLS),
            },
            heuristic,
            max_tokens=600,
        )
        steps = []
        for s in out.steps:
            call = None
            if s.skill in SKILLS:
                try:
                    call = validate_skill(SkillCall(skill=s.skill, args=s.args))
                except ValidationError:
                    call = None
            steps.append(PlanStep(text=s.text, skill=call, substeps=tuple(s.substeps)))
        new = Plan(
            goal=goals.current, steps=tuple(steps), current=0, brain=brain, updated_at=time.time()
        )
        ctx.write("plan", new)
        ctx.emit("plan", goal=goals.current, steps=[s.text for s in steps], brain=brain)
        remember(
            ctx, f"Plan for '{goals.current}': " + "; ".join(s.text for s in steps) + ".", "plan"
        )

    def _advance(self, ctx: ModuleContext, plan: Plan, action: Action) -> None:
        """Mark the current step done when its skill last succeeded."""
        if plan.current >= len(plan.steps):
            return
        cur = plan.steps[plan.current]
        last = action.log[-1] if action.log else None
        if (
            last
            and last.outcome
            and last.outcome.success
            and cur.skill == last.call
            and last.outcome.ended_at > plan.updated_at
        ):
            steps = list(plan.steps)
            steps[plan.current] = cur.model_copy(update={"done": True})
            ctx.write(
                "plan",
                plan.model_copy(
                    update={
                        "steps": tuple(steps),
                        "current": plan.current + 1,
                        "updated_at": time.time(),
                    }
                ),
            )
