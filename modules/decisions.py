"""Turning the controller policy's typed output into a validated :class:`Decision`.

The skill call is validated against the skill's argument model; an utterance goal that
promises a gift is dropped unless the decision carries the give (speech and action agree).
"""

from __future__ import annotations

import uuid

from pydantic import ValidationError

from agent_runtime.state.sections import Decision, IntentKind, UtteranceKind
from agent_runtime.world import SKILLS, SkillCall, validate_skill
from modules.base import short
from modules.heuristics.controller import ControllerOut

__all__ = ["skill_list", "to_decision"]


def skill_list() -> str:
    return "\n".join(f"- {n}({', '.join(m.model_fields)})" for n, m in SKILLS.items())


def to_decision(out: ControllerOut, brain: str, previous: Decision, now: float) -> Decision | None:
    """The policy output as a Decision, or None when its skill call is invalid."""
    call: SkillCall | None = None
    if out.skill:
        if out.skill not in SKILLS or out.skill in ("chat", "whisper"):
            return None
        try:
            call = validate_skill(SkillCall(skill=out.skill, args=out.args))
        except ValidationError:
            return None
    say = out.say
    if (
        say is not None
        and say.kind is UtteranceKind.AGREE_GIVE
        and (call is None or call.skill != "give")
    ):
        say = None  # coherence: never promise a gift without the give
    return Decision(
        id=uuid.uuid4().hex[:12],
        kind=out.kind if call is not None or out.kind is not IntentKind.WORK else IntentKind.TALK,
        intent=short(out.intent or (call.describe() if call else "keep going"), 300),
        skill=call,
        target=out.target,
        item=out.item,
        count=out.count,
        say=say,
        reason=out.reason,
        brain=brain,
        supersedes=previous.id,
        updated_at=now,
    )
