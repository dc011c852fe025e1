"""The Cognitive Controller's bottleneck: a declared, size-limited, typed view of the Agent State.

The controller never reads the state directly. :func:`build_view` takes the configured
sections in order, selects each one's facts as a typed model (for the heuristic policy;
:mod:`agent_runtime.bottleneck_summaries`) and writes its text from them once (for the LLM
policy; :mod:`agent_runtime.bottleneck_text`), whole lines within its ``max_chars``, then
enforces the total budget, a section counted as it stands in the prompt (its ``## name``
header, its text and the blank line after it): sections marked ``always`` (e.g. social
information) are kept first and never cut by the total; the others are included in order
while they fit. These are the one size budget of what the controller knows, its prompt
included. A section that
did not make it through is absent: its typed accessor (``view.perception`` ...) returns the
empty default, so a policy cannot tell it from a section with nothing in it.

:class:`BottleneckView` is a :class:`~agent_runtime.policy.View`: it is exactly what the
controller's policy (LLM or heuristic) gets."""

from __future__ import annotations

import weakref
from typing import Any, ClassVar, Generic, TypeVar, overload

from pydantic import Field

from agent_runtime.bottleneck_data import (
    ActionData,
    AwarenessData,
    ConversationData,
    Data,
    GoalsData,
    IdentityData,
    PerceptionData,
    PlanData,
    ReflectionData,
    SectionData,
    SocialData,
    WorkingMemoryData,
)
from agent_runtime.bottleneck_summaries import SUMMARISERS
from agent_runtime.bottleneck_text import NEWEST_LAST, clip, render
from agent_runtime.config.models import BottleneckSection, BottleneckSettings
from agent_runtime.policy import View
from agent_runtime.state.sections import Section

__all__ = ["BottleneckView", "SectionView", "build_view", "prompt_chars"]

D = TypeVar("D", bound=Data)


class SectionView(Data):
    """One section as it made it through: its text, its typed data, whether it was cut."""

    name: str
    text: str
    data: SectionData
    truncated: bool = False


class _Typed(Generic[D]):
    """A section's typed accessor (``view.perception``): its data, or the empty default when
    the section did not make it through."""

    def __init__(self, kind: type[D]) -> None:
        self.kind = kind
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, view: None, owner: type) -> _Typed[D]: ...
    @overload
    def __get__(self, view: BottleneckView, owner: type) -> D: ...
    def __get__(self, view: BottleneckView | None, owner: type) -> D | _Typed[D]:
        if view is None:
            return self
        v = view.sections.get(self.name)
        return v.data if v is not None and isinstance(v.data, self.kind) else self.kind()


class BottleneckView(View):
    """What the controller may know: the sections that made it through, and the time."""

    sections: dict[str, SectionView] = Field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    chars: int = 0
    now: float = 0.0  # the agent's clock when the view was built
    time_scale: float = 1.0  # how fast the agent's time runs (durations are multiplied by it)

    #: each section's typed data (the empty default when it did not make it through)
    identity: ClassVar[_Typed[IdentityData]] = _Typed(IdentityData)
    perception: ClassVar[_Typed[PerceptionData]] = _Typed(PerceptionData)
    goals: ClassVar[_Typed[GoalsData]] = _Typed(GoalsData)
    plan: ClassVar[_Typed[PlanData]] = _Typed(PlanData)
    social: ClassVar[_Typed[SocialData]] = _Typed(SocialData)
    conversation: ClassVar[_Typed[ConversationData]] = _Typed(ConversationData)
    action: ClassVar[_Typed[ActionData]] = _Typed(ActionData)
    awareness: ClassVar[_Typed[AwarenessData]] = _Typed(AwarenessData)
    working_memory: ClassVar[_Typed[WorkingMemoryData]] = _Typed(WorkingMemoryData)
    reflection: ClassVar[_Typed[ReflectionData]] = _Typed(ReflectionData)

    def seconds(self, s: float) -> float:
        """``s`` seconds of the agent's time, in clock seconds."""
        return s * self.time_scale

    def text(self) -> str:
        return "\n\n".join(f"## {v.name}\n{v.text}" for v in self.sections.values() if v.text)

    def has(self, section: str) -> bool:
        return section in self.sections

    def data(self, section: str) -> dict[str, Any]:
        """A section's data as a dict ({} when absent); the typed accessors are preferred."""
        v = self.sections.get(section)
        return v.data.model_dump() if v is not None else {}

    def prompt_variables(self) -> dict[str, str]:
        return {"view": self.text()}


#: its section is garbage (weak reference), so the memo holds only the sections agents hold
_MEMO: dict[tuple[int, int], tuple[weakref.ref[Section], BottleneckSection, SectionView]] = {}


def _section_view(section: Section, spec: BottleneckSection) -> SectionView:
    """The summary of one section, computed once per section object: sections are immutable
    and replaced on every write, so an unchanged section (the same object, read again on the
    next step) has the same summary."""
    key = (id(section), id(spec))
    hit = _MEMO.get(key)
    if hit is not None and hit[0]() is section and hit[1] is spec:
        return hit[2]
    data = SUMMARISERS[spec.section](section, spec)
    lines = render(data, spec)
    text, cut = clip(lines, spec.max_chars, newest=spec.section in NEWEST_LAST)
    # built from validated parts: no re-validation (a hot path: every controller step)
    view = SectionView.model_construct(name=spec.section, text=text, data=data, truncated=cut)
    _MEMO[key] = (weakref.ref(section, lambda _: _MEMO.pop(key, None)), spec, view)
    return view


def prompt_chars(view: SectionView) -> int:
    """The characters a section takes in the prompt's view: ``## name``, its text and the
    blank line after it (nothing when it has no text: the prompt leaves it out)."""
    return len(view.name) + len(view.text) + 6 if view.text else 0


def build_view(
    snapshot: dict[str, Section],
    settings: BottleneckSettings,
    *,
    now: float = 0.0,
    time_scale: float = 1.0,
) -> BottleneckView:
    """Summarise the configured sections of ``snapshot`` within the configured limits."""
    built: list[tuple[BottleneckSection, SectionView]] = []
    for spec in settings.sections:
        section = snapshot.get(spec.section)
        if section is None:
            continue
        built.append((spec, _section_view(section, spec)))
    chosen: dict[str, SectionView] = {}
    used = 0
    for spec, view in built:  # always-through channels first
        if spec.always:
            chosen[spec.section] = view
            used += prompt_chars(view)
    dropped = []
    for spec, view in built:
        if spec.always:
            continue
        if used + prompt_chars(view) <= settings.max_total_chars:
            chosen[spec.section] = view
            used += prompt_chars(view)
        else:
            dropped.append(spec.section)
    order = [s.section for s, _ in built if s.section in chosen]
    # every part is already a validated model or a plain value: no re-validation
    return BottleneckView.model_construct(
        sections={n: chosen[n] for n in order},
        dropped=tuple(dropped),
        chars=used,
        now=now,
        time_scale=time_scale,
    )
