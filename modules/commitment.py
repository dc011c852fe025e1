"""Commitment: a skill the body is carrying out is replaced only when something the agent
perceives warrants it, as plans are revised in Generative Agents.

:func:`replacement_reason` says why a proposed skill may replace the running one, from the
bottleneck view only, or None (keep the running skill). Reasons:

- ``danger``: health or food is low (the only reason to interrupt a running deposit);
- ``deposit_request``: an open deposit request is perceived and the new skill fulfils it;
- ``request``: the new skill gives to someone who asked the agent after the skill started;
- ``goal_changed``: the current goal was set after the skill started;
- ``stale``: the skill has run far past its expected time.

A failed skill is not running any more, so it needs no reason to be followed by another.
"""

from __future__ import annotations

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.world import SKILL_TIMEOUTS, SkillCall
from modules.heuristics.deposit import open_request

__all__ = ["REASONS", "replacement_reason"]

REASONS = (
    "danger",
    "deposit_request",
    "request",
    "goal_changed",
    "stale",
    "model_decided",  # the model's answer replaced a filler step taken while it thought
)
LOW_HEALTH, LOW_FOOD = 6.0, 6.0


def replacement_reason(view: BottleneckView, new: SkillCall) -> str | None:
    """Why ``new`` may replace the running skill; None when the agent should keep its word."""
    running = view.action.running
    if running is None or new == running:
        return None
    started = view.action.started_at
    per = view.perception
    if per.health < LOW_HEALTH or per.food < LOW_FOOD:
        return "danger"
    if running.skill == "deposit":
        return None  # fulfilling a request: finished before anything but danger
    if new.skill == "deposit" and open_request(view) is not None:
        return "deposit_request"
    me, asker = view.identity.name, new.args.get("player")
    if new.skill == "give" and any(
        u.speaker == asker and u.to == me and u.at > started for u in view.conversation.lines
    ):
        return "request"
    if view.goals.set_at > started:
        return "goal_changed"
    limit = view.seconds(SKILL_TIMEOUTS.get(running.skill, 60.0)) * 2.0
    if started and view.now - started > limit:
        return "stale"
    return None
