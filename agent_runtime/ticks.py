"""Timed wake-ups grouped by due time: one event-loop timer per tick, not one per waiter.

A village process has thousands of module runners, each waiting for its next due time. A
loop timer per waiter costs a timer handle, heap operations and, above all, a pass of the
event loop (a poll of the selector) per wake-up: at 300 agents about 2,100 passes a second,
and the selector's poll alone took ~14% of the process's CPU (see
``agent_runtime/app/BENCH.md``). Runners round their due times *up* to a grid of
:data:`TICK_S` seconds (scaled by the run's time scale) with :func:`round_up` and register
them here: every runner due in one tick wakes in the same pass of the loop. A wake-up is
never early; it is at most one tick late, and that delay is part of the scheduling lag
the runner measures against its true due time.

Registrations cannot be cancelled: a waiter that no longer wants its wake-up ignores it
(see :class:`agent_runtime.scheduling.ModuleRunner`). A callback gets the due time it was
registered for, so a waiter can register one pre-bound method for all its waits (nothing
allocated per wait: fewer objects for the garbage collector to walk).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

from agent_runtime.event_loop import PerLoop

__all__ = ["TICK_S", "Wakeups", "round_up", "wakeups"]

#: The grid wake-ups are rounded up to, in seconds of run time (times the time scale).
TICK_S = 0.005


def round_up(when: float, tick: float) -> float:
    """``when`` rounded up to a multiple of ``tick`` (the same float for the same tick)."""
    return math.ceil(when / tick) * tick


class Wakeups:
    """Callbacks grouped by their exact due time (loop clock), one loop timer per group."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._due: dict[float, list[Callable[[float], None]]] = {}
        self.timers = 0  # loop timers created (one per distinct due time)

    def at(self, when: float, callback: Callable[[float], None]) -> None:
        """Call ``callback(when)`` from the loop at ``when`` (``loop.time()`` clock)."""
        group = self._due.get(when)
        if group is None:
            group = self._due[when] = []
            self._loop.call_at(when, self._fire, when)
            self.timers += 1
        group.append(callback)

    def pending(self) -> int:
        return sum(len(g) for g in self._due.values())

    def _fire(self, when: float) -> None:
        for callback in self._due.pop(when, ()):
            callback(when)


_BY_LOOP: PerLoop[Wakeups] = PerLoop(Wakeups)


def wakeups() -> Wakeups:
    """The running loop's :class:`Wakeups` (created on first use)."""
    return _BY_LOOP.get()
