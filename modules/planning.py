"""Planning as in Generative Agents: the agent's game day in broad strokes (5-8 chunks),
the current chunk in hour-scale chunks, the current hour in 5-15 minute steps, each entry
with its start and duration in the agent's game time; every entry stored as a plan memory;
re-planned from the present when what the agent perceives conflicts with its current step.

Levels (all in the :class:`~agent_runtime.state.sections.Plan` section; ``steps`` and
``current`` stay the finest level, what the controller follows):

- ``day`` (``Plan.day``): made at the first step of each game day (24 game hours, from
  ``ctx.clock.game_hours()``; a run starts at 06:00 of day 1), from the agent's own summary
  (traits, community goal, goal), covering the rest of the day;
- ``hours`` (``Plan.hours``): the current day chunk in hour-scale chunks, made when the
  chunk starts (lazily, as the paper's implementation does);
- ``steps``: the current hour chunk in 5-15 minute steps with skill calls, made when the
  hour starts (with a model: for at least an hour from now, ``step_window_h``). A step is
  done when its skill succeeds; when the steps run out or the hour is over, the next hour
  chunk is decomposed; when the day chunk is over, the next one.

React and re-plan (each step): :func:`modules.heuristics.planning.replan_reason` reads
the view for a conflict the agent perceived since its plan was last revised: its goal
changed (re-plan the rest of the day from now; with a model only the steps from now, the
day's outline kept), the current step's target is no longer in
sight, one of its own actions failed or action awareness noted a discrepancy (with a model:
only when the plan's current step failed twice since the plan was revised; the first failure,
and failures of other skills, are the controller's to recover from), or a request addressed
to it was heard (re-plan the steps from now, the reason in the view).
Without a conflict the plan is kept. While the agent perceives nothing (its body's last
observation failed: ``connected`` false, an empty inventory and sight) it does not plan:
a blank observation is not a reason to re-plan from an empty inventory.

The policy (:func:`modules.heuristics.planning.plan`, or the LLM prompts
``prompts/planning.md`` (day), ``planning_hours.md`` and ``planning_steps.md``) gets the
same :class:`~modules.views.PlanView` at every level; the module fits what it returns to
the level's count and durations (:func:`fit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from agent_runtime.config.module_options import PlanningOptions
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import (
    Action,
    Awareness,
    Conversation,
    Goals,
    Identity,
    Perception,
    Plan,
    PlanStep,
)
from agent_runtime.world import SKILLS
from modules.base import remember
from modules.heuristics.planning import (
    PlanOut,
    replan_reason,
)
from modules.heuristics.planning import plan as heuristic_plan
from modules.plan_answers import COMPACT, compact_heuristic, to_plan
from modules.plan_fit import MIN_WINDOW_H, Level, chunk_end, first_open, fit, window
from modules.policies import decide, module_policy
from modules.techtree import same_step, step_done
from modules.views import PlanView, clock_text, plan_view

__all__ = ["Planning", "prompt_variables"]

PROMPTS: dict[str, str] = {"day": "planning", "hour": "planning_hours", "step": "planning_steps"}
DAY_HOURS = 24.0
IMPORTANCE = {"day": 5, "hour": 3, "step": 2}  # of the plan memories (no rating call)


def prompt_variables(view: PlanView) -> dict[str, str]:
    """The view's prompt variables, no lines heard written as ``(none)``: a fence is for
    others' words, and there are none to hold."""
    out = view.prompt_variables()
    if not view.heard:
        out["heard"] = "(none)"
    return out


class Planning(Module):
    name: ClassVar[str] = "planning"
    reads: ClassVar[frozenset[str]] = frozenset(
        {"identity", "goals", "perception", "plan", "action", "awareness", "conversation"}
    )
    writes: ClassVar[frozenset[str]] = frozenset({"plan"})

    def __init__(self, schedule: Any, options: PlanningOptions | None = None) -> None:
        super().__init__(schedule)
        o = options or PlanningOptions()
        #: with a model, a goal change re-plans only the steps from now (one call; the day's
        #: outline is kept, as Generative Agents re-plan a reaction from the current time)
        #: instead of the day, its hour chunks and the steps (three calls)
        self.goal_steps = o.goal_steps
        self.goal_replans = 0  # goal changes re-planned as steps only
        #: with a model, the steps' window runs at least this long from now (game hours)
        self.step_window_h = o.step_window_h
        #: with a model, an hour chunk whose time is over while steps of it are left keeps
        #: them (no call) until they run out or the day chunk ends; the next hour is then
        #: decomposed from now (False: at the hour's end, as the heuristic does)
        self.finish_steps = o.finish_steps
        self.carried = 0  # hour chunks over whose steps left were kept
        self._carried_at: tuple[int, int, int] | None = None
        #: with a model, the steps are re-planned for a perceived conflict at most this often
        #: (agent's seconds; 0 = at once, as the heuristic does); meanwhile the plan is kept
        #: and the controller, asked on the same failure or request, answers it
        self.replan_min_s = o.replan_min_s
        self._replanned_at: float | None = None
        self.deferred = 0  # conflicts left for later
        #: with a model, first failures since a revision left to the controller's recovery
        #: (a step re-plan on every failure made half the plan revisions, each beside a
        #: controller call on the same failure)
        self.left_to_controller = 0

    def _defer(self, ctx: ModuleContext) -> bool:
        """A re-plan of the steps now would come within ``replan_min_s`` of the last one."""
        if self.replan_min_s <= 0 or not ctx.brain.uses_llm:
            return False
        now = ctx.clock.now()
        wait = self.replan_min_s * ctx.clock.time_scale
        if self._replanned_at is not None and now - self._replanned_at < wait:
            self.deferred += 1
            return True
        self._replanned_at = now
        return False

    def _first_failure(
        self, ctx: ModuleContext, reason: str, plan: Plan, action: Action, awareness: Awareness
    ) -> bool:
        """With a model, a failure is left to the controller (asked on every failure, it
        decides the recovery) until the plan's current step has failed twice since the plan
        was revised: then the plan cannot go on as written and the steps are re-planned.
        Failures of other skills (a recovery's, a filler's) do not count against the step.
        A failed skill is often both a failed outcome and a noted discrepancy, so the larger
        of the two counts is the number of failures. Without a current step with a skill,
        any two failures since the revision count."""
        if not reason.startswith("failure") or not ctx.brain.uses_llm:
            return False
        since = plan.revised_at
        step = plan.steps[plan.current].skill if plan.current < len(plan.steps) else None
        failed = sum(
            1
            for e in action.log
            if e.outcome is not None
            and not e.outcome.success
            and not e.outcome.cancelled
            and e.outcome.ended_at > since
            and (step is None or same_step(step, e.call))
        )
        noted = sum(
            1
            for d in awareness.discrepancies
            if d.at > since and (step is None or d.skill == step.skill)
        )
        if max(failed, noted) >= 2:
            return False
        self.left_to_controller += 1
        return True

    async def step(self, ctx: ModuleContext) -> None:
        goals = ctx.read("goals", Goals)
        perception = ctx.read("perception", Perception)
        if not goals.current or not perception.observation.connected:
            return  # no goal yet, or nothing perceived now (a failed observation)
        action = ctx.read("action", Action)
        plan = self._advance(ctx, ctx.read("plan", Plan), action)
        hour = ctx.clock.game_hours()
        awareness = ctx.read("awareness", Awareness)
        view = plan_view(
            ctx.read("identity", Identity),
            goals,
            perception,
            tuple(SKILLS),
            plan=plan,
            action=action,
            awareness=awareness,
            conv=ctx.read("conversation", Conversation),
            hour=hour,
        )
        day_no = int(hour // DAY_HOURS)
        if not plan.day or plan.day_number != day_no:
            await self._plan_day(ctx, view, plan, "a new day" if plan.day else "")
            return
        reason = replan_reason(view)
        if reason is not None and reason.startswith("goal"):
            if self.goal_steps and plan.hours and ctx.brain.uses_llm:
                self.goal_replans += 1
                await self._plan_steps(ctx, view, plan, reason)
            else:
                await self._plan_day(ctx, view, plan, reason)
        elif (
            reason is not None
            and not self._first_failure(ctx, reason, plan, action, awareness)
            and not self._defer(ctx)
        ):
            await self._plan_steps(ctx, view, plan, reason)
        else:
            await self._follow(ctx, view, plan)

    async def _ask(self, ctx: ModuleContext, view: PlanView) -> tuple[PlanOut, str]:
        if not ctx.brain.uses_llm:  # the heuristic: its full plan (sub-steps too)
            policy = module_policy(
                ctx, PlanOut, heuristic_plan, prompt=PROMPTS[view.level], max_tokens=700
            )
            got = await decide(ctx, policy, view)
            return got.value, got.brain
        model, max_tokens = COMPACT[view.level]
        compact: Any = module_policy(
            ctx,
            model,
            compact_heuristic(model),
            prompt=PROMPTS[view.level],
            variables=prompt_variables,
            max_tokens=max_tokens,
        )
        answer = await decide(ctx, compact, view)
        return to_plan(answer.value), answer.brain

    async def _plan_day(self, ctx: ModuleContext, view: PlanView, plan: Plan, reason: str) -> None:
        """The rest of the day in broad strokes from now (chunks already over are kept, the
        one under way is cut at now), then its first chunk in hours and steps."""
        now = view.hour
        day_no = int(now // DAY_HOURS)
        day_end = (day_no + 1) * DAY_HOURS
        kept: list[PlanStep] = []
        if plan.day_number == day_no:
            for c in plan.day:
                if c.start < now:
                    cut = min(c.minutes, (now - c.start) * 60.0)
                    kept.append(c.model_copy(update={"minutes": cut, "done": True}))
        v = view.model_copy(
            update={
                "level": "day",
                "start": now,
                "end": max(day_end, now + MIN_WINDOW_H),
                "reason": reason,
                "done": tuple(c.text for c in kept),
            }
        )
        out, brain = await self._ask(ctx, v)
        fresh = fit(out.steps, "day", v.start, v.end)
        self._remember(ctx, "day", fresh)
        base = Plan(
            goal=view.goal,
            day=(*kept, *fresh),
            day_current=len(kept),
            day_number=day_no,
            brain=brain,
            revised_for=reason or "a fresh plan",
        )
        await self._plan_hours(ctx, view, base, len(kept), reason)

    async def _plan_hours(
        self, ctx: ModuleContext, view: PlanView, plan: Plan, index: int, reason: str
    ) -> None:
        chunk = plan.day[index]
        v = window(
            view,
            "hour",
            chunk,
            chunk.kind,
            reason,
            day_plan=tuple(
                f"{clock_text(c.start)[-5:]} ({c.minutes / 60:.1f} h): {c.text}" for c in plan.day
            ),
        )
        out, brain = await self._ask(ctx, v)
        hours = fit(
            [e.model_copy(update={"kind": e.kind or chunk.kind}) for e in out.steps],
            "hour",
            v.start,
            v.end,
        )
        self._remember(ctx, "hour", hours)
        new = plan.model_copy(
            update={"day_current": index, "hours": tuple(hours), "hour_current": 0, "brain": brain}
        )
        await self._plan_steps(ctx, v, new, reason, fresh_hour=True)

    async def _plan_steps(
        self,
        ctx: ModuleContext,
        view: PlanView,
        plan: Plan,
        reason: str,
        *,
        fresh_hour: bool = False,
    ) -> None:
        """The current hour chunk in 5-15 minute steps from now (a re-plan keeps the steps
        done so far and replaces the rest)."""
        if not plan.hours:  # a plan from before the levels: start the day afresh
            await self._plan_day(ctx, view, plan, reason)
            return
        chunk = plan.hours[min(plan.hour_current, len(plan.hours) - 1)]
        v = window(
            view,
            "step",
            chunk,
            chunk.kind or plan.day[plan.day_current].kind,
            reason,
            done=tuple(s.text for s in plan.steps if s.done),
        )
        if self.step_window_h > 0 and ctx.brain.uses_llm:
            v = v.model_copy(update={"end": max(v.end, v.start + self.step_window_h)})
        out, brain = await self._ask(ctx, v)
        steps = [
            s.model_copy(update={"expects": self._expects(s, v)})
            for s in fit(out.steps, "step", v.start, v.end)
        ]
        kept = () if fresh_hour else tuple(s for s in plan.steps if s.done)
        new = plan.model_copy(
            update={
                "goal": view.goal,
                "steps": (*kept, *steps),
                "current": len(kept),
                "brain": brain,
                "revised_for": reason or plan.revised_for,
                "revised_at": ctx.clock.now(),
                "updated_at": ctx.clock.now(),
            }
        )
        ctx.write("plan", new)
        ctx.emit(
            "plan",
            goal=view.goal,
            steps=[s.text for s in steps],
            brain=brain,
            reason=reason,
            hour=chunk.text,
            day=[c.text for c in new.day],
            starts=[round(s.start, 3) for s in steps],
            minutes=[round(s.minutes, 1) for s in steps],
        )
        self._remember(ctx, "step", steps)

    async def _follow(self, ctx: ModuleContext, view: PlanView, plan: Plan) -> None:
        """No conflict: keep the plan, moving on to the next hour or day chunk when the
        current one's steps are done or its time is over."""
        now = view.hour
        hour_chunk = plan.hours[plan.hour_current] if plan.hour_current < len(plan.hours) else None
        if (
            plan.current < len(plan.steps)
            and hour_chunk is not None
            and chunk_end(hour_chunk) > now
        ):
            return  # keep the plan
        day_chunk = plan.day[plan.day_current] if plan.day_current < len(plan.day) else None
        if (
            plan.current < len(plan.steps)
            and day_chunk is not None
            and chunk_end(day_chunk) > now
            and self.finish_steps
            and ctx.brain.uses_llm
        ):
            # the hour is over, its steps are not: the plan has not run out, keep it (skills
            # take their own time, not the game minutes a step was given)
            at = (plan.day_number, plan.day_current, plan.hour_current)
            if at != self._carried_at:
                self._carried_at = at
                self.carried += 1
            return
        if day_chunk is not None and chunk_end(day_chunk) > now:
            nxt = first_open(plan.hours, now, plan.hour_current + 1)
            if nxt is not None:
                moved = plan.model_copy(update={"hour_current": nxt})
                await self._plan_steps(ctx, view, moved, "", fresh_hour=True)
                return
        index = first_open(plan.day, now, plan.day_current + 1)
        if index is None:  # the day's plan is used up before the day ends: plan the rest
            await self._plan_day(ctx, view, plan, "the day's plan is done")
            return
        await self._plan_hours(ctx, view, plan, index, "")

    @staticmethod
    def _expects(step: PlanStep, view: PlanView) -> tuple[str, ...]:
        block = step.skill.args.get("block") if step.skill is not None else None
        return (block,) if isinstance(block, str) and block in view.seen else ()

    @staticmethod
    def _remember(ctx: ModuleContext, level: Level, entries: Sequence[PlanStep]) -> None:
        """Plan entries as plan memories (retrievable): each day and hour chunk, and the
        steps of an hour as one memory."""
        if level == "step":
            if entries:
                text = "; ".join(
                    f"{clock_text(s.start)[-5:]} {s.text} ({s.minutes:.0f} min)" for s in entries
                )
                remember(ctx, f"My next steps: {text}.", "plan", importance=IMPORTANCE[level])
            return
        for c in entries:
            span = f"from {clock_text(c.start)} to {clock_text(chunk_end(c))[-5:]}"
            what = "I plan to" if level == "day" else "this hour I plan to"
            remember(
                ctx, f"{span.capitalize()} {what} {c.text}.", "plan", importance=IMPORTANCE[level]
            )

    def _advance(self, ctx: ModuleContext, plan: Plan, action: Action) -> Plan:
        """Mark the current step done when its skill last succeeded."""
        if plan.current >= len(plan.steps):
            return plan
        cur = plan.steps[plan.current]
        last = action.log[-1] if action.log else None
        out = last.outcome if last is not None else None
        if (
            last is not None
            and out is not None
            and step_done(cur.skill, last.call, out.success, out.ended_at, plan.updated_at)
        ):
            steps = list(plan.steps)
            steps[plan.current] = cur.model_copy(update={"done": True})
            plan = plan.model_copy(
                update={
                    "steps": tuple(steps),
                    "current": plan.current + 1,
                    "updated_at": ctx.clock.now(),
                }
            )
            ctx.write("plan", plan)
        return plan
