"""Goal generation: the agent's social goal, regenerated every 5-10 s.

Inputs, as in the paper, all from the agent's own state (:class:`~modules.views.GoalView`):
its name, community goal, traits, current goal and inventory, what it sees, what others
are doing as its social awareness perceived it, and what it heard others ask for. The
current goal is kept until it is reached, pursued long enough, or others are heard asking
for something else (:func:`modules.heuristics.goals.revise_reason`). Every regeneration is
appended to the goal history, from which experiments infer roles.

The policy is :func:`modules.heuristics.goals.choose_goal` or the LLM prompt
``prompts/goal_generation.md``, fed the same view. While the agent perceives nothing (its
body's last observation failed) the goal is left as it is.

With a model (option ``ask_on_change``, on by default) the model is asked only when what a
goal depends on changed since its last call (:func:`inputs`: the current goal, the activities others
are seen doing, what others asked for, the heuristic's own reason to revise)
or ``max_interval_s`` (default 300 s) passed; otherwise the goal is kept without a call.
(Asked on every line heard and every new kind of item held, goal generation made a call
every ~24 s of the agent's.)
"""

from __future__ import annotations

from typing import Any, ClassVar

from agent_runtime.bus.messages import GOAL, GoalChange
from agent_runtime.config.module_options import GoalOptions
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.policy import LLMPolicy
from agent_runtime.state.sections import (
    Conversation,
    GoalEntry,
    Goals,
    Identity,
    Perception,
    Social,
)
from modules.base import appended, remember
from modules.controller.asking import InputGate
from modules.heuristics.goals import (
    GoalOut,
    choose_goal,
    classify_activity,
    goal_done,
    heard_needs,
    revise_reason,
)
from modules.knowledge import ACTIVITIES
from modules.policies import decide, module_policy
from modules.views import GoalView, goal_view

HISTORY = 200


def inputs(view: GoalView) -> tuple[object, ...]:
    """What a new goal depends on, from the goal view: the current goal, the activities others
    are seen doing (not who does which), what others asked for in the lines heard (not every
    line), and whether the heuristic sees a reason to revise (reached, pursued long enough,
    others need something else). Items gathered toward the goal are no news until it is
    reached (a reason to revise); the ceiling asks again meanwhile."""
    return (
        view.current,
        tuple(sorted(set(view.others.values()))),
        tuple(sorted(heard_needs(view.heard).items())),
        revise_reason(view),
    )


__all__ = ["GoalGeneration", "GoalOut", "classify_activity", "goal_done"]


class GoalGeneration(Module):
    name: ClassVar[str] = "goal_generation"
    reads: ClassVar[frozenset[str]] = frozenset(
        {"identity", "goals", "social", "perception", "conversation"}
    )
    writes: ClassVar[frozenset[str]] = frozenset({"goals"})

    def __init__(self, schedule: Any, options: GoalOptions | None = None) -> None:
        super().__init__(schedule)
        o = options or GoalOptions()
        self.gate = InputGate(o.max_interval_s) if o.ask_on_change else None
        unknown = [k for k in o.kinds if k not in ACTIVITIES]
        if unknown:
            raise ValueError(f"goal_generation.options.kinds: unknown activities {unknown}")
        self.kinds = o.kinds or tuple(ACTIVITIES)

    def _view(self, ctx: ModuleContext, goals: Goals, perception: Perception) -> GoalView:
        return goal_view(
            ctx.read("identity", Identity),
            goals,
            perception,
            ctx.read("social", Social),
            ctx.read("conversation", Conversation),
            inventory_at_goal=dict(goals.inventory_at_set),
            kinds=self.kinds,
            now=ctx.clock.now(),
            time_scale=ctx.clock.time_scale,
        )

    async def step(self, ctx: ModuleContext) -> None:
        goals = ctx.read("goals", Goals)
        perception = ctx.read("perception", Perception)
        if not perception.observation.connected:
            return  # nothing perceived now (a failed observation): not a blank inventory
        view = self._view(ctx, goals, perception)
        policy = module_policy(ctx, GoalOut, choose_goal, prompt="goal_generation", max_tokens=150)
        gate = self.gate if isinstance(policy, LLMPolicy) else None
        if gate is not None and not gate.due(inputs(view), view.now / view.time_scale):
            gate.held += 1
            return  # nothing a goal depends on changed: keep it without a call
        try:
            await self._regenerate(ctx, policy, view, goals)
        finally:
            if gate is not None:  # its own answer is no news to it
                after = self._view(ctx, ctx.read("goals", Goals), perception)
                gate.asked(inputs(after), view.now / view.time_scale)

    async def _regenerate(
        self, ctx: ModuleContext, policy: Any, view: GoalView, goals: Goals
    ) -> None:
        got = await decide(ctx, policy, view)
        out, brain = got.value, got.brain
        kind = out.kind if out.kind in ACTIVITIES else classify_activity(out.goal)
        now = ctx.clock.now()
        if out.keep_current and goals.current:
            # the history records every regeneration, kept or changed (roles use the last 5)
            entry = GoalEntry(goal=goals.current, at=now, brain=brain, reason="kept: " + out.reason)
            ctx.write(
                "goals",
                goals.model_copy(
                    update={"history": appended(goals.history, entry, HISTORY), "updated_at": now}
                ),
            )
            return
        entry = GoalEntry(goal=out.goal, at=now, brain=brain, reason=out.reason)
        ctx.write(
            "goals",
            Goals(
                current=out.goal,
                kind=kind,
                set_at=now,
                inventory_at_set=view.inventory,
                history=appended(goals.history, entry, HISTORY),
                brain=brain,
                updated_at=now,
            ),
        )
        await ctx.publish(
            GOAL, GoalChange(goal=out.goal, kind=kind, previous=goals.current, brain=brain)
        )
        ctx.emit("goal", goal=out.goal, kind=kind, previous=goals.current, brain=brain)
        remember(ctx, f"My goal now: {out.goal}.", "plan", importance=5)
