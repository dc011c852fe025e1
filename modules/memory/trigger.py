"""The reflection trigger of one memory stream: how much newly perceived importance it holds.

Generative Agents reflect when the importance of what an agent perceived since its last
reflection passes a threshold. :class:`ReflectionTrigger` keeps that sum and its bookkeeping
(how many records added to it, how many reflections, when the last one was); a record adds
to it when it is of a perceived kind (:data:`REFLECTION_COUNTED_KINDS`) and not a repeat of
one of the latest :data:`RETENTION` perceived records (same :func:`gist`).
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass, field

from modules.memory.records import MemoryKind, MemoryRecord

__all__ = ["REFLECTION_COUNTED_KINDS", "RETENTION", "ReflectionTrigger", "gist"]

#: Kinds whose importance adds to the reflection trigger: what the agent perceives
#: (Generative Agents sum the importance of perceived events; their plans, reflections and
#: other thoughts, like our plan, reflection and seed records, do not add to it).
REFLECTION_COUNTED_KINDS: frozenset[MemoryKind] = frozenset(
    {"observation", "action", "conversation"}
)
#: A perceived record whose gist is among the latest this many perceived records' gists
#: is a repeat and does not add to the trigger (Generative Agents' ``retention`` of 5: an
#: event among the latest five is not perceived anew).
RETENTION = 5

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_NON_WORD = re.compile(r"[^a-z#]+")


def gist(text: str) -> str:
    """``text`` lower-cased with numbers as ``#`` and punctuation as spaces: "I tried to
    collect(block=oak_log, count=4): +4 oak_log" and the same with 3 share one gist."""
    return _NON_WORD.sub(" ", _NUMBER.sub("#", text.lower())).strip()


@dataclass(eq=False)
class ReflectionTrigger:
    """The trigger's state; the stream persists ``since``, ``reflections`` and ``last``."""

    counted_kinds: frozenset[MemoryKind] = REFLECTION_COUNTED_KINDS
    retention: int = RETENTION
    #: importance summed over counted records since the last reflection
    since: float = 0.0
    reflections: int = 0
    #: game time of the last completed reflection, if any
    last: float | None = None
    #: records that added to the trigger since the last reflection (in process; None after
    #: a reload, when it is not known)
    counted_n: int | None = 0
    #: gists of the latest perceived records (in process: after a reload, empty)
    latest: collections.deque[str] = field(default_factory=collections.deque)

    def loaded(self, since: float, reflections: int, last: float | None, empty: bool) -> None:
        """The state read back from Redis (``empty``: the stream holds no record)."""
        self.since = since
        self.reflections = reflections
        self.last = last
        self.counted_n = 0 if since == 0 and empty else None

    def counts(self, record: MemoryRecord, counted: bool) -> bool:
        """Whether ``record`` adds to the trigger: a perceived kind, not marked uncounted,
        and not a repeat of one of the latest ``retention`` perceived records (whose window
        it joins either way)."""
        if not counted or record.kind not in self.counted_kinds:
            return False
        if self.retention <= 0:
            self.counted_n = None if self.counted_n is None else self.counted_n + 1
            return True
        g = gist(record.text)
        repeat = g in self.latest
        self.latest.append(g)
        while len(self.latest) > self.retention:
            self.latest.popleft()
        if not repeat and self.counted_n is not None:
            self.counted_n += 1
        return not repeat

    def reflected(self, since: float, now: float) -> None:
        """A reflection completed at ``now``; ``since`` is what remains of the sum."""
        self.since = since
        self.reflections += 1
        self.last = now
        self.counted_n = 0
