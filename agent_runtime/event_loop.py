"""The event loop a village process runs on: the standard library's, or uvloop's on request.

A village process is mostly event-loop work: thousands of module tasks waking, awaiting
futures, and sockets to Redis and the broker. uvloop (libuv) does that bookkeeping in C:
at 300 agents in one process it took 15% less CPU per agent-second than the standard loop
in one back-to-back comparison, and made no clear difference in another (see
``agent_runtime/app/BENCH.md``). Its clock
(``loop.time()``) and timers have millisecond resolution, which is finer than anything the
scheduler needs (wake-ups are grouped on a 5 ms grid, :mod:`agent_runtime.ticks`).

It is not the default: libuv starts a child process with fork(), which runs every atfork
handler, and OpenBLAS's waits for its thread pool while another thread is inside a BLAS
call: a process that starts a child (Redis, the broker, a body, the web view) while memory
encodings run in worker threads can hang for good (``tests/core/test_child_spawn_blas.py``
hangs on uvloop; asyncio's loop uses vfork and does not). ``PIANO_EVENT_LOOP=uvloop``
selects it for processes that start no children while they run (e.g. ``piano worker
--world none``) or with ``OPENBLAS_NUM_THREADS=1`` (no pool to wait for), which importing
:mod:`agent_runtime` now sets unless the environment names another count.

:class:`PerLoop` holds one object per loop for things bound to one loop (the timer groups of
:mod:`agent_runtime.ticks`, the memory encodings' queue).
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

__all__ = ["LOOP_ENV", "PerLoop", "loop_factory", "loop_name", "run"]

#: ``uvloop`` selects uvloop's event loop (if installed); anything else: the standard loop
LOOP_ENV = "PIANO_EVENT_LOOP"

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor when asked for and installed, else None (the standard loop)."""
    if os.environ.get(LOOP_ENV, "").strip().lower() != "uvloop":
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


class PerLoop(Generic[T]):
    """One ``T`` per event loop, made by ``make(loop)`` on first use in that loop and gone
    with the loop (for things whose futures, tasks or timers belong to one loop)."""

    def __init__(self, make: Callable[[asyncio.AbstractEventLoop], T]) -> None:
        self._make = make
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = (
            weakref.WeakKeyDictionary()
        )

    def get(self) -> T:
        """The running loop's ``T``."""
        loop = asyncio.get_running_loop()
        value = self._by_loop.get(loop)
        if value is None:
            value = self._by_loop[loop] = self._make(loop)
        return value
