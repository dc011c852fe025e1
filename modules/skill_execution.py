"""Skill execution: turns the controller's broadcast decision into a skill call on the body.

It wakes on the agent's ``decision`` topic. A decision that carries a skill
starts it (publishing ``skill`` started/finished messages that action awareness
and observers follow); a newer decision that carries a different skill cancels
the running one first. Chat and whisper are the talking module's business, not
this one's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, ClassVar

from agent_runtime.bus.messages import DECISION, SKILL, SkillEvent
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Action, ActionLogEntry, Decision, Perception
from agent_runtime.world import SKILL_TIMEOUTS, WALK_BLOCKS_PER_S, SkillCall, SkillOutcome, Vec3
from modules.base import remember

log = logging.getLogger(__name__)

LOG_LIMIT = 50
GIFT_LOG_LIMIT = 100  # >= GiftSettings.items_per_hour: the gift ledger covers the hour
CANCEL_GRACE = 10.0

#: Skills that walk to a position given in their arguments (the body walks there from any
#: distance, in legs: bots/body/lib/move.js ``walkTo``).
WALKING_SKILLS = frozenset({"go_to", "place", "deposit", "withdraw"})


def walk_allowance(call: SkillCall, here: Vec3 | None) -> float:
    """Seconds added to ``call``'s time limit for the walk to its target: the distance from
    where the body last was (its own observation) at WALK_BLOCKS_PER_S. 0 for a skill without
    a target position, an unknown position, or a call that sets its own timeout."""
    if call.timeout is not None or call.skill not in WALKING_SKILLS or here is None:
        return 0.0
    x, z = call.args.get("x"), call.args.get("z")
    if not isinstance(x, int | float) or not isinstance(z, int | float):
        return 0.0
    y = call.args.get("y")
    target = Vec3(x=x, y=y if isinstance(y, int | float) else here.y, z=z)
    return here.distance_to(target) / WALK_BLOCKS_PER_S


def describe_outcome(o: SkillOutcome) -> str:
    delta = ", ".join(f"{'+' if v > 0 else ''}{v} {k}" for k, v in o.inventory_delta.items() if v)
    if o.success:
        return f"{o.skill} succeeded" + (f" ({delta})" if delta else "")
    return f"{o.skill} failed: {o.reason}" + (f" ({delta})" if delta else "")


class SkillExecution(Module):
    name: ClassVar[str] = "skill_execution"
    reads: ClassVar[frozenset[str]] = frozenset({"decision", "action", "perception"})
    writes: ClassVar[frozenset[str]] = frozenset({"action"})

    async def setup(self, ctx: ModuleContext) -> None:
        """A skill still marked running at start was cut off by a stop, kill or restart:
        the body no longer runs it, so it ends here as cancelled (and the controller, which
        waits for running skills to finish, decides again)."""
        action = ctx.read("action", Action)
        if action.running is None:
            return
        call = action.running
        outcome = SkillOutcome(
            skill=call.skill,
            success=False,
            reason="cancelled: interrupted when the agent stopped",
            failure="cancelled",
            cancelled=True,
            started_at=action.started_at,
            ended_at=ctx.clock.now(),
        )
        self._record(ctx, Decision(id=action.running_decision), call, outcome)

    async def step(self, ctx: ModuleContext) -> None:
        decision = self._latest(ctx.pending(DECISION))
        while decision is not None:
            decision = await self._execute(ctx, decision)

    @staticmethod
    def _latest(decisions: list[Decision]) -> Decision | None:
        """The latest decision that carries a skill (a later one that only speaks does not
        drop it), else the latest decision."""
        latest: Decision | None = None
        for d in reversed(decisions):
            if d.skill is not None:
                return d
            latest = latest or d
        return latest

    async def _execute(self, ctx: ModuleContext, decision: Decision) -> Decision | None:
        """Run the decision's skill; return a newer decision that superseded it, if any."""
        call = decision.skill
        if call is None or call.skill in ("chat", "whisper"):
            return None
        action = ctx.read("action", Action)
        ctx.write(
            "action",
            action.model_copy(
                update={
                    "running": call,
                    "running_decision": decision.id,
                    "started_at": ctx.clock.now(),
                    "updated_at": ctx.clock.now(),
                }
            ),
        )
        await ctx.publish(SKILL, SkillEvent(event="started", decision=decision.id, call=call))
        ctx.emit("skill_started", decision=decision.id, call=call.model_dump(mode="json"))
        # a far target: the body's limit and this wait both cover the walk there
        walk = walk_allowance(call, ctx.read("perception", Perception).observation.position)
        timeout = (
            call.timeout or SKILL_TIMEOUTS.get(call.skill, 60.0) * max(1.0, ctx.clock.time_scale)
        ) + walk
        sent = call
        if walk > 0:
            sent = call.model_copy(update={"timeout": SKILL_TIMEOUTS.get(call.skill, 60.0) + walk})
        run = asyncio.ensure_future(ctx.body.run_skill(sent))
        superseded: Decision | None = None
        try:
            deadline = time.monotonic() + timeout + CANCEL_GRACE
            while not run.done():
                waiter = asyncio.ensure_future(ctx.next_message(DECISION))
                try:
                    done, _ = await asyncio.wait(
                        {run, waiter},
                        timeout=max(0.0, deadline - time.monotonic()),
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                finally:
                    if not waiter.done():
                        waiter.cancel()
                if waiter in done:
                    newer = self._latest([waiter.result(), *ctx.pending(DECISION)])
                    if (
                        newer is not None
                        and newer.skill is not None
                        and newer.skill != call
                        and newer.skill.skill not in ("chat", "whisper")
                    ):
                        superseded = newer
                        await ctx.body.cancel_skill()
                        break
                if not done:  # the body did not honour its own timeout
                    await ctx.body.cancel_skill()
                    break
            try:
                async with asyncio.timeout(CANCEL_GRACE):
                    outcome = await asyncio.shield(run)
            except TimeoutError:
                run.cancel()
                outcome = SkillOutcome(
                    skill=call.skill,
                    success=False,
                    reason="timed out",
                    timed_out=True,
                    ended_at=ctx.clock.now(),
                )
        except asyncio.CancelledError:
            run.cancel()
            raise
        except Exception as err:  # the bridge failed: report it as an outcome
            outcome = SkillOutcome(
                skill=call.skill,
                success=False,
                reason=f"body error: {type(err).__name__}",
                ended_at=ctx.clock.now(),
            )
        self._record(
            ctx, decision, call, outcome, superseded_by=superseded.id if superseded else ""
        )
        await ctx.publish(
            SKILL, SkillEvent(event="finished", decision=decision.id, call=call, outcome=outcome)
        )
        return superseded

    def _record(
        self,
        ctx: ModuleContext,
        decision: Decision,
        call: SkillCall,
        o: SkillOutcome,
        superseded_by: str = "",
    ) -> None:
        action = ctx.read("action", Action)
        entry = ActionLogEntry(
            decision_id=decision.id, call=call, outcome=o, started_at=action.started_at
        )
        ctx.write(
            "action",
            action.model_copy(
                update={
                    "running": None,
                    "running_decision": "",
                    "last_outcome": o,
                    "log": (*action.log[-(LOG_LIMIT - 1) :], entry),
                    "gifts": (*action.gifts[-(GIFT_LOG_LIMIT - 1) :], entry)
                    if call.skill == "give"
                    and (o.success or any(v < 0 for v in o.inventory_delta.values()))
                    else action.gifts,
                    "completed": action.completed + (1 if o.success else 0),
                    "failed": action.failed + (0 if o.success else 1),
                    "updated_at": ctx.clock.now(),
                }
            ),
        )
        ctx.emit(
            "skill_outcome",
            decision=decision.id,
            call=call.model_dump(mode="json"),
            success=o.success,
            reason=o.reason,
            failure=o.failure,
            delta=o.inventory_delta,
            cancelled=o.cancelled,
            timed_out=o.timed_out,
            detail=o.detail,
            superseded_by=superseded_by,  # the decision that replaced it, if one did
        )
        remember(
            ctx, f"I tried to {call.describe()}: {describe_outcome(o)}.", "action", importance=None
        )

    def get_state(self) -> dict[str, Any]:
        return {}
