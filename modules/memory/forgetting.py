"""The bound on one agent's memory: what is forgotten when a stream grows past its cap.

Policy (Generative Agents keeps everything; a village that runs for hours cannot): when a
stream holds more than ``max_records`` memories, the oldest *routine* ones are forgotten
until it is back to ``LOW_WATER`` of the cap. Routine means an observation or action of
importance at most ``ROUTINE_IMPORTANCE`` that is not among the ``keep_recent`` newest
records and is not cited as evidence by a reflection. Seeds, conversations, plans,
reflections and anything important are never forgotten. In place of what it forgot the
stream keeps one summary observation ("I no longer remember the details of N routine
moments between ... and ...; most were about ..."), so the agent knows that time passed.
"""

from __future__ import annotations

import collections
import logging
import re
from collections.abc import Iterable, Sequence

from modules.memory.prompting import format_hours
from modules.memory.records import MemoryRecord, NewMemory

log = logging.getLogger(__name__)

__all__ = ["LOW_WATER", "ROUTINE_IMPORTANCE", "forgettable", "plan_forgetting", "summary_of"]

ROUTINE_IMPORTANCE = 3
LOW_WATER = 0.9
_WORD = re.compile(r"[a-z]{4,}")
_STOP = frozenset({"that", "this", "with", "from", "have", "were", "tried", "succeeded", "nearby"})


def forgettable(
    records: Sequence[MemoryRecord], max_records: int, keep_recent: int, cited: Iterable[int]
) -> list[MemoryRecord]:
    """The records to forget so that ``records`` shrinks to ``LOW_WATER * max_records``
    (fewer when not enough are routine), oldest first."""
    if len(records) <= max_records:
        return []
    excess = len(records) - int(max_records * LOW_WATER)
    protected = set(cited)
    by_age = sorted(records, key=lambda r: (r.created, r.id))
    recent = {r.id for r in by_age[-keep_recent:]} if keep_recent > 0 else set()
    out: list[MemoryRecord] = []
    for r in by_age:
        if len(out) >= excess:
            break
        if (
            r.kind in ("observation", "action")
            and r.importance <= ROUTINE_IMPORTANCE
            and r.id not in recent
            and r.id not in protected
        ):
            out.append(r)
    return out


def summary_of(forgotten: Sequence[MemoryRecord], when: str) -> str:
    """One observation that stands for the forgotten records."""
    words = collections.Counter(
        w for r in forgotten for w in _WORD.findall(r.text.lower()) if w not in _STOP
    )
    topics = ", ".join(w for w, _ in words.most_common(4)) or "everyday things"
    return (
        f"I no longer remember the details of {len(forgotten)} routine moments {when}; "
        f"most were about {topics}."
    )


def plan_forgetting(
    records: Sequence[MemoryRecord], max_records: int, keep_recent: int
) -> tuple[list[MemoryRecord], NewMemory] | None:
    """What a stream over its bound forgets (the routine records, oldest first; a record
    another one cites is kept) and the one observation that stands for them; None: nothing."""
    cited = {e for r in records for e in r.evidence}
    gone = forgettable(records, max_records, keep_recent, cited)
    if not gone:
        return None
    when = f"between {format_hours(gone[0].created)} and {format_hours(gone[-1].created)}"
    summary = NewMemory(
        summary_of(gone, when), "observation", 2, created=gone[-1].created, source="forgetting"
    )
    return gone, summary
