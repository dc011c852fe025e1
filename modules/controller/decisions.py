"""The controller's grammar-friendly output and its validation into a :class:`Decision`.

:class:`ControllerChoice` is what the controller's policy answers (LLM and heuristic alike).
Every field is typed so that a schema-constrained decoder (llama.cpp's ``json_object`` with a
schema, OpenAI's ``json_schema``) can only produce valid values: the skill name and the intent
and utterance kinds are enums, the skill's arguments are a few typed optional fields
(``item``, ``count``, ``target``, ``x``/``y``/``z``) instead of a free-form dict, and texts are
short. :func:`skill_args` maps those fields onto each skill's argument model
(:data:`agent_runtime.world.SKILLS`); the heuristic's exact :class:`ControllerOut` rides
along unchanged (:meth:`ControllerChoice.of`).

:func:`to_decision` validates the skill call against the skill's argument model; an utterance
goal that promises a gift is dropped unless the decision carries the give (speech and action
agree).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Mapping
from typing import Annotated, Any, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
)

from agent_runtime.state.sections import Decision, IntentKind, UtteranceGoal, UtteranceKind
from agent_runtime.world import SKILLS, ActingSkill, SkillCall, validate_skill
from modules.base import short

__all__ = [
    "CHOICE_SKILLS",
    "ControllerChoice",
    "SkillChoice",
    "skill_args",
    "skill_list",
    "to_decision",
]

#: The skills the controller may choose (speech goes through ``say``, never chat/whisper).
SkillChoice = ActingSkill
CHOICE_SKILLS: tuple[str, ...] = get_args(SkillChoice)

#: skill argument name -> the ControllerChoice field it is read from
_ARG_SOURCE: dict[str, str] = {
    "player": "target",
    "target": "target",
    "block": "item",
    "item": "item",
    "count": "count",
    "x": "x",
    "y": "y",
    "z": "z",
}
#: utterance kinds whose item/count are the decision's item/count
_ITEM_TALK = (UtteranceKind.AGREE_GIVE, UtteranceKind.REFUSE, UtteranceKind.HAVE_NONE)


class ControllerOut(BaseModel):
    """The controller's typed decision (the LLM policy answers the same JSON)."""

    kind: IntentKind = IntentKind.WORK
    intent: str = Field(default="", max_length=300, description="what you do now, one sentence")
    skill: str | None = Field(default=None, description="one skill name, or null to keep going")
    args: dict[str, Any] = Field(default_factory=dict)
    target: str | None = None
    item: str | None = None
    count: int | None = None
    say: UtteranceGoal | None = None
    reason: str = Field(default="", max_length=300)


def _clip(limit: int) -> Callable[[object], object]:
    """Over-long text is cut, not rejected: not every grammar enforces ``maxLength``."""

    def clip(value: object) -> object:
        return value[:limit] if isinstance(value, str) else value

    return clip


def _count(value: object) -> object:
    """0 or less means none, more than a stack is a stack: not every grammar enforces the
    bounds, and a reply is not thrown away for them."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return None if value < 1 else min(int(value), 64)
    return value


Name = Annotated[Annotated[str, Field(max_length=40)] | None, BeforeValidator(_clip(40))]
Count = Annotated[Annotated[int, Field(ge=1, le=64)] | None, BeforeValidator(_count)]


def _drop_titles(schema: dict[str, Any]) -> None:
    """Titles repeat the names, the docstring is for people: fewer schema tokens where the
    schema goes into a prompt."""
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


class ControllerChoice(BaseModel):
    """The controller's decision as the model fills it in: enums and typed optional fields.

    The field order is the order a model writes them: what kind of decision, the skill and
    its arguments, what to say, then a short reason."""

    model_config = ConfigDict(json_schema_extra=_drop_titles)  # the prompt says what each is

    kind: IntentKind = IntentKind.WORK
    skill: SkillChoice | None = None  # null keeps the current action
    item: Name = None  # item or block
    count: Count = None
    target: Name = None  # player or mob
    x: float | None = None
    y: float | None = None
    z: float | None = None
    say: UtteranceKind | None = None  # null stays silent
    say_to: Name = None
    say_text: Annotated[
        Annotated[str, Field(max_length=120)] | None, BeforeValidator(_clip(120))
    ] = None
    reason: Annotated[str, BeforeValidator(_clip(160)), Field(max_length=160)] = ""
    #: true: once this skill succeeds, the plan's next steps are carried out without asking
    #: again while nothing else changes (a standing decision; see the controller)
    follow_plan: bool = False

    _exact: ControllerOut | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, out: ControllerOut) -> ControllerChoice:
        """A heuristic's output as a choice; :meth:`to_out` gives ``out`` back unchanged."""
        args, say = out.args, out.say
        pos = [args.get(k) for k in "xyz"]
        choice = cls(
            kind=out.kind,
            skill=out.skill if out.skill in CHOICE_SKILLS else None,
            item=_str(args.get("item") or args.get("block") or out.item),
            count=args.get("count") if isinstance(args.get("count"), int) else out.count,
            target=_str(args.get("player") or args.get("target") or out.target),
            x=pos[0],
            y=pos[1],
            z=pos[2],
            say=say.kind if say else None,
            say_to=say.to if say else None,
            say_text=(say.text or say.topic or None) if say else None,
            reason=out.reason[:160],
        )
        choice._exact = out
        return choice

    def to_out(self, opinions: Mapping[str, float] | None = None) -> ControllerOut:
        """The choice as the controller's :class:`ControllerOut`. ``opinions`` (the agent's
        own, from its view) give the stance of an opinion it voices."""
        if self._exact is not None:
            return self._exact
        return ControllerOut(
            kind=self.kind,
            intent=self._intent(),
            skill=self.skill,
            args=skill_args(self) if self.skill else {},
            target=self.target,
            item=self.item,
            count=self.count,
            say=self._say(opinions or {}),
            reason=self.reason,
        )

    def _intent(self) -> str:
        if self.skill:
            return SkillCall(skill=self.skill, args=skill_args(self)).describe()
        if self.say is not None:
            return f"{self.say.value.replace('_', ' ')} {self.say_to or 'everyone'}"
        return "keep going"

    def _say(self, opinions: Mapping[str, float]) -> UtteranceGoal | None:
        if self.say is None:
            return None
        text = self.say_text or ""
        kind = self.say
        return UtteranceGoal(
            kind=kind,
            to=self.say_to or (self.target if kind in _ITEM_TALK else None),
            item=self.item if kind in _ITEM_TALK else None,
            count=self.count if kind in _ITEM_TALK else None,
            topic=(text or None) if kind is not UtteranceKind.FREE else None,
            stance=opinions.get(text) if kind is UtteranceKind.OPINION else None,
            text=text if kind is UtteranceKind.FREE else "",
        )


def _str(value: object) -> str | None:
    return str(value)[:40] if value is not None else None


def skill_args(choice: ControllerChoice) -> dict[str, Any]:
    """The chosen skill's arguments, read from the choice's typed fields."""
    if choice.skill is None:
        return {}
    out: dict[str, Any] = {}
    for arg in SKILLS[choice.skill].model_fields:
        source = _ARG_SOURCE.get(arg)
        value = getattr(choice, source) if source else None
        if value is not None:
            out[arg] = value
    return out


@functools.cache
def skill_list() -> str:
    """The skills and which fields each reads, one line each (for the prompt; built once)."""
    lines = []
    for name in CHOICE_SKILLS:
        fields = dict.fromkeys(_ARG_SOURCE.get(a, "") for a in SKILLS[name].model_fields)
        used = [f for f in fields if f]
        lines.append(f"{name}({','.join(used)})" if used else name)
    return " ".join(lines)


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
