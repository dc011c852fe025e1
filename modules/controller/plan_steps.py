"""The step of its own plan an agent would start now: what a standing decision follows."""

from __future__ import annotations

from agent_runtime.bottleneck_data import ActionData, PlanData
from agent_runtime.world import SkillCall
from modules.techtree import step_done

__all__ = ["next_plan_step", "plan_ran_out"]


def _next(plan: PlanData, act: ActionData) -> tuple[int, SkillCall | None]:
    """The index of the step the agent would start now and its skill: the current one, or
    the one after it when the last skill carried out the current step after the plan was last
    written: the planning module marks that step done on the same skill event, on its own
    cadence, so the controller may look first (:func:`modules.techtree.step_done`, the rule
    planning applies)."""
    last = act.recent[-1] if act.recent else None
    done = last is not None and step_done(
        plan.current_skill, last.call, last.success, last.ended_at, plan.updated_at
    )
    return (plan.current + 1, plan.next_skill) if done else (plan.current, plan.current_skill)


def next_plan_step(plan: PlanData, act: ActionData) -> tuple[int, str, SkillCall] | None:
    """The step of its own plan the agent would start now (index, text, skill); None when
    that step has no skill or the plan's steps ran out."""
    index, skill = _next(plan, act)
    if skill is None or index >= len(plan.steps):
        return None
    return index, plan.steps[index], skill


def plan_ran_out(plan: PlanData, act: ActionData) -> bool:
    """Every step of the plan is done (with the last skill's): the planning module, woken by
    the same skill event, writes the next steps."""
    return _next(plan, act)[0] >= len(plan.steps)
