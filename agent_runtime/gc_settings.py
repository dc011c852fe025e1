"""Garbage-collector settings for a long-running village process (``piano run``, ``piano
worker``, ``piano bench runtime``), applied once its agents have started.

Profiling 300 agents in one process (``agent_runtime/app/BENCH.md``) showed the cyclic
collector taking about a third of the process's CPU: with the default thresholds it runs a
young collection every 700 allocations and, every few seconds, a full collection that walks
every object of the process (the imported code, the pydantic schemas, the agents' state).
:func:`settle_after_startup` collects once, then *freezes* what survived start-up (those
objects are never walked again; memory freed by reference counting is still freed) and raises
the young-generation threshold, so the collector runs about 30 times less often. Cyclic
garbage made later is still collected. Call it only in a process that runs one village for
its whole life (not in tests that start many villages in one process: frozen objects stay).
"""

from __future__ import annotations

import gc

#: allocations (net of deallocations) between young collections; the default is 700
YOUNG_THRESHOLD = 20_000


def settle_after_startup(young: int = YOUNG_THRESHOLD) -> int:
    """Collect, freeze the survivors, raise the young threshold; returns the frozen count."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(young, max(older, 50), max(oldest, 100))
    return gc.get_freeze_count()
