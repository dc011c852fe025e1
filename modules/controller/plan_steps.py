"""The step of its own plan an agent would start now: what a standing decision follows."""

from __future__ import annotations

from agent_runtime.bottleneck_data import ActionData, PlanData
from agent_runtime.world import SkillCall
from modules.techtree import step_done

__all__ = ["next_plan_step"]


def next_plan_step(plan: PlanData, act: ActionData) -> tuple[int, str, SkillCall] | None:
    """The step of its own plan the agent would start now (index, text, skill): the current
    one, or the one after it when the last skill carried out the current step after the plan
    was last written: the planning module marks that step done on the same skill event, on its
    own cadence, so the controller may look first (:func:`modules.techtree.step_done`, the rule planning
    applies). None when that step has no skill."""
    last = act.recent[-1] if act.recent else None
    done = last is not None and step_done(
        plan.current_skill, last.call, last.success, last.ended_at, plan.updated_at
    )
    index, skill = (
        (plan.current + 1, plan.next_skill) if done else (plan.current, plan.current_skill)
    )
    if skill is None or index >= len(plan.steps):
        return None
    return index, plan.steps[index], skill
