"""One model call of the controller in flight: what the reflexes did meanwhile, and the
model's decision without what they already did."""

from __future__ import annotations

from typing import Any

from agent_runtime.state.sections import IntentKind
from agent_runtime.world import SkillCall
from modules.controller.decisions import ControllerOut

__all__ = ["Round", "without_done"]


class Round:
    """What reflexes did while one model call was in flight."""

    def __init__(self, since: float) -> None:
        self.since = since  # when the model was asked
        self.said_to: set[str | None] = set()
        self.skill = False
        self.gave_to: set[str] = set()
        self.filler: SkillCall | None = None  # a filler step the model's decision may replace


def without_done(out: ControllerOut, rnd: Round) -> ControllerOut:
    """The model's decision without what reflexes did while it thought: no second skill
    over a reflex's, no second answer to someone a reflex answered, no give to someone a
    reflex already answered."""
    update: dict[str, Any] = {}
    say = out.say
    if say is not None and (say.to in rnd.said_to or (say.to is None and rnd.said_to)):
        update["say"] = None
    gives_to = out.args.get("player") if out.skill == "give" else None
    answered = {t for t in rnd.said_to if t is not None} | rnd.gave_to
    if out.skill is not None and (rnd.skill or gives_to in answered):
        update.update(skill=None, args={}, kind=IntentKind.CONTINUE, intent="keep going")
    return out.model_copy(update=update) if update else out
