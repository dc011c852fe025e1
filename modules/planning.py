"""Planning: a coarse plan (5-8 steps) for the current goal, each step decomposed into
finer sub-steps; stored as plan memories; re-planned when the goal changes or the
controller's decisions leave the plan behind.

The policy (:func:`modules.heuristics.planning.plan`, or the LLM prompt
``prompts/planning.md``) gets a :class:`~modules.views.PlanView`: the agent's goal,
inventory and the blocks it sees.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import ValidationError

from agent_runtime.interfaces import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Action, Goals, Identity, Perception, Plan, PlanStep
from agent_runtime.world import SKILLS, SkillCall, validate_skill
from modules.base import remember
from modules.heuristics.planning import PlanOut
from modules.heuristics.planning import plan as heuristic_plan
from modules.policies import decide, module_policy
from modules.techtree import same_step
from modules.views import plan_view

__all__ = ["PlanOut", "Planning"]


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
        view = plan_view(
            ctx.read("identity", Identity), goals, ctx.read("perception", Perception), tuple(SKILLS)
        )
        policy = module_policy(ctx, PlanOut, heuristic_plan, prompt="planning", max_tokens=600)
        got = await decide(ctx, policy, view)
        out, brain = got.value, got.brain
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
            goal=goals.current,
            steps=tuple(steps),
            current=0,
            brain=brain,
            updated_at=ctx.clock.now(),
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
            and cur.skill is not None
            and same_step(cur.skill, last.call)
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
                        "updated_at": ctx.clock.now(),
                    }
                ),
            )
