"""How each section of the Agent State is summarised for the controller's view.

One summariser per section kind (:data:`SUMMARISERS`): from the section and its configured
limits (``max_items``, ``fields``) it selects the facts the controller may know, as typed
data (:mod:`agent_runtime.bottleneck_data`): what the heuristic policy reads, and what the
LLM policy's text is written from (:mod:`agent_runtime.bottleneck_text`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from agent_runtime.bottleneck_data import (
    ActionData,
    ActionRecord,
    AwarenessData,
    ConversationData,
    DiscrepancyNote,
    GoalsData,
    IdentityData,
    PerceptionData,
    PersonData,
    PlanData,
    ReflectionData,
    SectionData,
    SocialData,
    WorkingMemoryData,
)
from agent_runtime.bottleneck_text import PERCEPTION_FIELDS
from agent_runtime.config.models import BottleneckSection
from agent_runtime.state.sections import (
    Action,
    ActionLogEntry,
    Awareness,
    Conversation,
    Goals,
    Identity,
    IdentityFacts,
    Perception,
    Plan,
    Reflection,
    Social,
    WorkingMemory,
)

__all__ = ["SUMMARISERS", "Summary"]

#: the selected facts of one section
Summary = SectionData


_IDENTITY_FIELDS = tuple(IdentityFacts.model_fields)


def _identity(s: Identity, spec: BottleneckSection) -> Summary:
    # the section was validated when it was read: its fields are copied, not checked again
    facts = {k: getattr(s, k) for k in _IDENTITY_FIELDS}
    facts["location_memories"] = tuple(s.location_memories[: spec.max_items])
    return IdentityData.model_construct(**facts)


def _perception(s: Perception, spec: BottleneckSection) -> Summary:
    o = s.observation
    fields = set(spec.fields or PERCEPTION_FIELDS)
    data: dict[str, Any] = {"connected": o.connected, "observed_at": o.at}
    if "position" in fields and o.position is not None:
        data["position"] = o.position
    if "health" in fields:
        data["health"], data["food"] = o.health, o.food
    if "time" in fields:
        data["time_of_day"] = o.time_of_day
    if "inventory" in fields:
        data["inventory"] = dict(o.inventory)
    if "players" in fields:
        near = o.players[: spec.max_items]
        data["players"] = tuple(p.name for p in near)
        data["player_distance"] = {p.name: p.distance for p in near}
    if "blocks" in fields:
        seen: dict[str, float] = {}
        for b in o.blocks:
            seen[b.name] = min(seen.get(b.name, 1e9), b.distance)
        data["blocks"] = dict(sorted(seen.items(), key=lambda kv: kv[1])[: spec.max_items])
    return PerceptionData(**data)


def _goals(s: Goals, spec: BottleneckSection) -> Summary:
    return GoalsData(current=s.current, kind=s.kind, set_at=s.set_at)


def _plan(s: Plan, spec: BottleneckSection) -> Summary:
    if not s.steps:
        return PlanData()
    cur = s.steps[s.current] if s.current < len(s.steps) else None
    nxt = s.steps[s.current + 1] if s.current + 1 < len(s.steps) else None
    return PlanData(
        goal=s.goal,
        current=s.current,
        current_step=cur.text if cur else "",
        current_skill=cur.skill if cur else None,
        next_skill=nxt.skill if nxt else None,
        steps=tuple(st.text for st in s.steps),
        done=tuple(st.done for st in s.steps),
        updated_at=s.updated_at,
    )


def _social(s: Social, spec: BottleneckSection) -> Summary:
    people = sorted(s.people.values(), key=lambda p: -p.last_seen)[: spec.max_items]
    return SocialData(
        people=tuple(
            PersonData(
                name=p.name,
                sentiment=p.sentiment,
                activity=p.activity,
                summary=p.summary,
                interactions=p.interactions,
            )
            for p in people
        ),
        opinions=dict(s.opinions),
    )


def _conversation(s: Conversation, spec: BottleneckSection) -> Summary:
    last = s.last_utterance.at if s.last_utterance is not None else 0.0
    return ConversationData(
        lines=tuple(s.lines[-spec.max_items :]),
        announcements=s.announcements[-3:],
        pending_reply_to=s.pending_reply_to,
        spoke_to=dict(s.spoke_to),
        last_said_at=last,
    )


#: the record of each live log entry, keyed by id(entry): entries are immutable and carried
#: from one Action section to the next, so a new section re-uses the records of the entries
#: it kept; a record goes with its entry (weak reference)
_RECORDS: dict[int, tuple[weakref.ref[ActionLogEntry], ActionRecord]] = {}


def _record(e: ActionLogEntry) -> ActionRecord:
    key = id(e)
    hit = _RECORDS.get(key)
    if hit is not None and hit[0]() is e:
        return hit[1]
    rec = ActionRecord(
        call=e.call,
        started_at=e.started_at,
        success=e.outcome.success if e.outcome else None,
        ended_at=e.outcome.ended_at if e.outcome else 0.0,
        reason=e.outcome.reason if e.outcome else "",
        failure=e.outcome.failure if e.outcome else None,
        delta=dict(e.outcome.inventory_delta) if e.outcome else {},
    )
    _RECORDS[key] = (weakref.ref(e, lambda _: _RECORDS.pop(key, None)), rec)
    return rec


def _action(s: Action, spec: BottleneckSection) -> Summary:
    return ActionData(
        running=s.running,
        started_at=s.started_at,
        last_outcome=s.last_outcome,
        recent=tuple(map(_record, s.log[-max(spec.max_items, 20) :])),
        gifts=tuple(map(_record, s.gifts)),
        completed=s.completed,
        failed=s.failed,
    )


def _awareness(s: Awareness, spec: BottleneckSection) -> Summary:
    recent = s.discrepancies[-spec.max_items :]
    return AwarenessData(
        discrepancies=tuple(DiscrepancyNote(skill=d.skill, note=d.note, at=d.at) for d in recent),
        last_check=s.last_check,
    )


def _working_memory(s: WorkingMemory, spec: BottleneckSection) -> Summary:
    return WorkingMemoryData(
        items=tuple(i.text for i in s.items[-spec.max_items :]),
        retrieved=tuple(s.retrieved[: spec.max_items]),
    )


def _reflection(s: Reflection, spec: BottleneckSection) -> Summary:
    return ReflectionData(insights=tuple(s.insights[-spec.max_items :]))


SUMMARISERS: dict[str, Callable[[Any, BottleneckSection], Summary]] = {
    "identity": _identity,
    "perception": _perception,
    "goals": _goals,
    "plan": _plan,
    "social": _social,
    "conversation": _conversation,
    "action": _action,
    "awareness": _awareness,
    "working_memory": _working_memory,
    "reflection": _reflection,
}
