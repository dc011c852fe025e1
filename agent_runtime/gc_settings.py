"""Garbage-collector settings for a long-running village process (``piano run``, ``piano
worker``, ``piano bench runtime``), applied once its agents have started.

What the collector costs a village process (``agent_runtime/app/BENCH.md``): almost nothing
it walks is garbage (at 300 agents about 16 objects a second are cyclic garbage), but every
collection walks every live object of the generations it collects, at 2-5 µs an object on
the 2-core machine, and stops the event loop meanwhile. With the default thresholds a full
collection walked the whole process every few seconds (a third of the CPU); with start-up
objects frozen and a young threshold of 20,000, each young collection took 50-160 ms (every
object made since the last one that is still alive: waiting runners' futures, new memories),
and those pauses were the scheduling lag's p99 at 500 agents.

:func:`settle_after_startup` therefore:

* collects once and *freezes* what survived start-up (never walked again; memory freed by
  reference counting is still freed);
* keeps young collections small (:data:`YOUNG_THRESHOLD` allocations: a pause of 1-2 ms);
* after each young collection freezes its survivors too, so the older generations stay
  empty and are never walked (their collections were 50-150 ms pauses);
* once every :data:`FULL_COLLECT_S` seconds unfreezes everything and runs one full
  collection, so cyclic garbage made of objects frozen while alive is reclaimed (measured
  at 500 agents on the loaded 2-core machine: a 540 ms pause that freed 90 objects made in
  the ~30 s before it; counted in :data:`STATS` and logged). What waits for it is small:
  a few objects a second.

Call it only in a process that runs one village for its whole life, from its event loop
(not in tests that start many villages in one process: frozen objects stay);
:func:`restore_defaults` undoes it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FULL_COLLECT_S",
    "STATS",
    "YOUNG_THRESHOLD",
    "GcStats",
    "Pauses",
    "restore_defaults",
    "settle_after_startup",
]

log = logging.getLogger(__name__)

#: allocations (net of deallocations) between young collections; the default is 700
YOUNG_THRESHOLD = 1_000
#: seconds between the full collections that reclaim cyclic garbage of frozen objects
FULL_COLLECT_S = 3600.0

_DEFAULT_THRESHOLD = gc.get_threshold()


@dataclass
class Pauses:
    """One kind of collection: how many, and their pauses in seconds."""

    count: int = 0
    total_s: float = 0.0
    max_s: float = 0.0

    def add(self, pause_s: float) -> None:
        self.count += 1
        self.total_s += pause_s
        self.max_s = max(self.max_s, pause_s)


@dataclass
class GcStats:
    """What the collector did since :func:`settle_after_startup`."""

    young: Pauses = field(default_factory=Pauses)
    full: Pauses = field(default_factory=Pauses)
    full_freed: int = 0

    def reset(self) -> None:
        """Start counting afresh (a benchmark's measured window)."""
        self.young, self.full, self.full_freed = Pauses(), Pauses(), 0

    def figures(self) -> dict[str, float | int]:
        return {
            "young_collections": self.young.count,
            "young_pause_ms_total": round(1e3 * self.young.total_s, 1),
            "young_pause_ms_max": round(1e3 * self.young.max_s, 2),
            "full_collections": self.full.count,
            "full_pause_ms_max": round(1e3 * self.full.max_s, 1),
            "full_freed": self.full_freed,
        }


STATS = GcStats()
_started = 0.0
_full_handle: asyncio.TimerHandle | None = None


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    global _started
    if phase == "start":
        _started = time.perf_counter()
        return
    STATS.young.add(time.perf_counter() - _started)
    gc.freeze()  # the survivors skip the older generations: never walked again


def _full_collection(loop: asyncio.AbstractEventLoop, every_s: float) -> None:
    global _full_handle
    t0 = time.perf_counter()
    gc.callbacks.remove(_after_collection)
    try:
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
    finally:
        gc.callbacks.append(_after_collection)
    pause = time.perf_counter() - t0
    STATS.full.add(pause)
    STATS.full_freed += freed
    log.info("full garbage collection: %d objects freed in %.0f ms", freed, 1e3 * pause)
    _full_handle = loop.call_later(every_s, _full_collection, loop, every_s)


def settle_after_startup(
    young: int = YOUNG_THRESHOLD, *, full_every_s: float | None = FULL_COLLECT_S
) -> int:
    """Collect, freeze the survivors, keep the older generations empty (see the module's
    docstring); returns the frozen count. ``full_every_s`` None: no periodic full collection
    (then it needs no running event loop)."""
    global _full_handle
    restore_defaults()
    gc.collect()
    gc.freeze()
    gc.set_threshold(young, _DEFAULT_THRESHOLD[1], _DEFAULT_THRESHOLD[2])
    gc.callbacks.append(_after_collection)
    if full_every_s is not None:
        loop = asyncio.get_running_loop()
        _full_handle = loop.call_later(full_every_s, _full_collection, loop, full_every_s)
    return gc.get_freeze_count()


def restore_defaults() -> None:
    """Back to the interpreter's collector: default thresholds, nothing frozen, no callback."""
    global _full_handle
    if _full_handle is not None:
        _full_handle.cancel()
        _full_handle = None
    while _after_collection in gc.callbacks:
        gc.callbacks.remove(_after_collection)
    gc.unfreeze()
    gc.set_threshold(*_DEFAULT_THRESHOLD)
