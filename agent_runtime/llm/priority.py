"""Which LLM requests go first, and how long each may wait for a slot.

Three classes, served strictly in order by the :class:`~agent_runtime.llm.limits.Limiter`
(FIFO within a class):

* ``high``: the cognitive controller and replies to a speaker (talking): an agent
  is waiting on them;
* ``normal``: goals, plans, social summaries and anything not named below;
* ``low``: reflection and memory-importance ratings: useful, never urgent.

A module's class comes from its name (:func:`priority_for`), unless the
village file names it (``llm.priorities``) or the caller of
``Brain.think`` passes one. Each class has a deadline: the longest a request
may wait for a slot before it is shed to the heuristic (``LLMShed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum

__all__ = ["DEFAULT_DEADLINES_S", "Priority", "SchedulingPolicy", "priority_for"]


class Priority(IntEnum):
    """Lower value = served first."""

    HIGH = 0
    NORMAL = 1
    LOW = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: str | int | Priority) -> Priority:
        if isinstance(value, Priority):
            return value
        if isinstance(value, int):
            return cls(value)
        return cls[value.upper()]


#: Longest wait for a slot per class (seconds); the village file may change them.
DEFAULT_DEADLINES_S: Mapping[Priority, float] = {
    Priority.HIGH: 10.0,
    Priority.NORMAL: 6.0,
    Priority.LOW: 3.0,
}

_HIGH_WORDS = ("controller", "talk", "reply", "speech", "conversation")
_LOW_WORDS = ("reflect", "importance", "memory")


def priority_for(module: str) -> Priority:
    """The class a module's requests get by default, from its name."""
    name = module.lower()
    if any(w in name for w in _HIGH_WORDS):
        return Priority.HIGH
    if any(w in name for w in _LOW_WORDS):
        return Priority.LOW
    return Priority.NORMAL


@dataclass(frozen=True, slots=True)
class SchedulingPolicy:
    """Module -> class, class -> deadline; shared by the limiter of a run."""

    deadlines_s: Mapping[Priority, float] = field(default_factory=lambda: dict(DEFAULT_DEADLINES_S))
    overrides: Mapping[str, Priority] = field(default_factory=dict)

    def priority(self, module: str) -> Priority:
        return self.overrides.get(module, priority_for(module))

    def deadline_s(self, priority: Priority) -> float:
        return self.deadlines_s.get(priority, DEFAULT_DEADLINES_S[priority])
