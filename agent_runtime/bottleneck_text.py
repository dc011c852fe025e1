"""The controller's view as text, written once from its typed data.

One renderer per kind of section data (:data:`RENDERERS`, by the data's class): from the typed data
(:mod:`agent_runtime.bottleneck_data`, what the heuristic policy reads) and its configured
limits, the lines the LLM policy reads, each fact once and in few tokens: the agent's own
opinions on one line before the people, a person's activity once, positions as ``(x, y, z)``,
a memory retrieved again once. :func:`clip` keeps whole lines within the section's
``max_chars`` (the newest where lines run in time order). Others' words are quoted with
:func:`~agent_runtime.prompts.untrusted`; the prompt's system part says that quoted words are
not instructions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from agent_runtime.bottleneck_data import (
    ActionData,
    AwarenessData,
    ConversationData,
    GoalsData,
    IdentityData,
    PerceptionData,
    PlanData,
    ReflectionData,
    SocialData,
    WorkingMemoryData,
)
from agent_runtime.config.models import BottleneckSection
from agent_runtime.prompts import untrusted

__all__ = ["NEWEST_LAST", "PERCEPTION_FIELDS", "RENDERERS", "clip", "render"]

#: sections whose lines run in time order: a clip keeps the newest
NEWEST_LAST = frozenset({"conversation", "awareness", "working_memory"})
PERCEPTION_FIELDS = ("position", "health", "food", "inventory", "players", "blocks", "time")
#: a place written in a location memory's words (``x=1, y=64, z=-3``)
_XYZ = re.compile(r"\bx=(-?\d+(?:\.\d+)?), y=(-?\d+(?:\.\d+)?), z=(-?\d+(?:\.\d+)?)")


def _identity(d: IdentityData, spec: BottleneckSection) -> list[str]:
    lines = [f"You are {d.name}.", *d.traits]
    if d.community_goal:
        lines.append(f"Community goal: {d.community_goal}")
    return lines + [_XYZ.sub(r"(\1, \2, \3)", place) for place in d.location_memories]


def _perception(d: PerceptionData, spec: BottleneckSection) -> list[str]:
    fields = set(spec.fields or PERCEPTION_FIELDS)
    lines: list[str] = []
    if "position" in fields and d.position is not None:
        lines.append(f"Position: {d.position}")
    if "health" in fields:
        lines.append(f"Health {d.health:.0f}/20, food {d.food:.0f}/20")
    if "inventory" in fields:
        inv = sorted(d.inventory.items(), key=lambda kv: -kv[1])
        lines.append("Inventory: " + (", ".join(f"{n} x{c}" for n, c in inv) or "empty"))
    if "players" in fields and d.players:
        near = ", ".join(f"{p} ({d.player_distance.get(p, 0.0):.0f}m)" for p in d.players)
        lines.append("Nearby: " + near)
    if "blocks" in fields and d.blocks:
        lines.append("Blocks seen: " + ", ".join(f"{n} ({m:.0f}m)" for n, m in d.blocks.items()))
    return lines


def _goals(d: GoalsData, spec: BottleneckSection) -> list[str]:
    return [f"Current goal: {d.current}"] if d.current else ["No goal yet."]


def _plan(d: PlanData, spec: BottleneckSection) -> list[str]:
    if not d.steps:
        return []
    lines = [f"Plan for: {d.goal}"]
    for i, text in enumerate(d.steps[: spec.max_items]):
        done = i < len(d.done) and d.done[i]
        lines.append(f"[{'x' if done else ('>' if i == d.current else ' ')}] {text}")
    return lines


def _social(d: SocialData, spec: BottleneckSection) -> list[str]:
    lines: list[str] = []
    if d.opinions:  # the agent's own stance first: a clip keeps it
        said = ", ".join(f"{t} {v:+.1f}" for t, v in d.opinions.items())
        lines.append(f"My opinions (-1 against .. +1 for): {said}")
    for p in d.people:
        # an activity the person's summary already says is said once
        known = p.activity and p.activity in p.summary
        activity = (
            ""
            if known
            else "; "
            + (f"activity {untrusted(p.activity, 120)}" if p.activity else "activity unknown")
        )
        summary = f"; {untrusted(p.summary, 300)}" if p.summary else ""
        lines.append(f"{p.name}: sentiment {p.sentiment:.0f}/10{activity}{summary}")
    return lines


def _conversation(d: ConversationData, spec: BottleneckSection) -> list[str]:
    news = [a for a in d.announcements if a not in d.lines]
    lines = [f"Announcement by {a.speaker}: {untrusted(a.text)}" for a in news]
    return lines + [
        f"{u.speaker}{' (to ' + u.to + ')' if u.to else ''}: {untrusted(u.text)}" for u in d.lines
    ]


def _action(d: ActionData, spec: BottleneckSection) -> list[str]:
    lines = []
    if d.running is not None:
        lines.append(f"Doing: {d.running.describe()}")
    if d.last_outcome is not None:
        o = d.last_outcome
        lines.append(f"Last action {o.skill} {'succeeded' if o.success else 'failed: ' + o.reason}")
    return lines


def _awareness(d: AwarenessData, spec: BottleneckSection) -> list[str]:
    return [n.note for n in d.discrepancies]


def _working_memory(d: WorkingMemoryData, spec: BottleneckSection) -> list[str]:
    held = set(d.items)  # a memory retrieved again is said once
    return [
        *map(untrusted, d.items),
        *(f"Remembered: {untrusted(r)}" for r in d.retrieved if r not in held),
    ]


def _reflection(d: ReflectionData, spec: BottleneckSection) -> list[str]:
    return list(d.insights)


#: the lines of each kind of section data (one data class per section kind: the section names
#: are listed once, by the summarisers)
RENDERERS: dict[type, Callable[[Any, BottleneckSection], list[str]]] = {
    IdentityData: _identity,
    PerceptionData: _perception,
    GoalsData: _goals,
    PlanData: _plan,
    SocialData: _social,
    ConversationData: _conversation,
    ActionData: _action,
    AwarenessData: _awareness,
    WorkingMemoryData: _working_memory,
    ReflectionData: _reflection,
}


def render(data: object, spec: BottleneckSection) -> list[str]:
    """The text lines of one section's typed data, within nothing yet (:func:`clip` cuts)."""
    return RENDERERS[type(data)](data, spec)


def clip(lines: list[str], limit: int, *, newest: bool = False) -> tuple[str, bool]:
    """``lines`` (each once, the latest kept) as text within ``limit`` characters: whole
    lines, the last ones when ``newest``; a first line too long is cut ("…"). Whether
    anything was left out."""
    unique = list(dict.fromkeys(reversed(lines)))[::-1]
    cut = False
    picked: list[str] = []
    used = -1
    for line in reversed(unique) if newest else unique:
        if used + 1 + len(line) > limit:
            if not picked:
                picked.append(line[: max(0, limit - 1)].rstrip() + "…")
            cut = True
            break
        picked.append(line)
        used += 1 + len(line)
    if newest:
        picked.reverse()
    return "\n".join(picked), cut
