"""The event loop a village process runs on: uvloop's, else the standard library's.

A village process is mostly event-loop work: thousands of module tasks waking, awaiting
futures, and sockets to Redis and the broker. uvloop (libuv) does that bookkeeping in C:
at 300 agents in one process it took about 15% less CPU per agent-second than the
standard loop for the same work (see ``agent_runtime/app/BENCH.md``). Its clock
(``loop.time()``) and timers have millisecond resolution, which is finer than anything the
scheduler needs (wake-ups are grouped on a 5 ms grid, :mod:`agent_runtime.ticks`).

``PIANO_EVENT_LOOP=asyncio`` in the environment selects the standard loop (for debugging
or comparison); so does a machine without uvloop installed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["LOOP_ENV", "loop_factory", "loop_name", "run"]

#: ``asyncio`` selects the standard event loop; anything else (or unset): uvloop if installed
LOOP_ENV = "PIANO_EVENT_LOOP"

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor, or None for the standard loop."""
    if os.environ.get(LOOP_ENV, "").strip().lower() == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def loop_name() -> str:
    """``uvloop`` or ``asyncio``: what :func:`run` would use here."""
    return "asyncio" if loop_factory() is None else "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop :func:`loop_factory` chooses."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
