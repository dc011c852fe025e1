"""A gate on the sentence encodings sent to worker threads.

At most :data:`OFFLOAD_JOBS` encodings run in the default executor at once per event loop;
the rest wait in asyncio, where a stop cancels them at once. Without it every agent's
encodings queued in the executor, and the end of ``asyncio.run`` (which waits for the
executor's queue) took minutes with MiniLM after a run was stopped.
"""

from __future__ import annotations

import asyncio
import weakref

__all__ = ["OFFLOAD_JOBS", "offload_gate"]

OFFLOAD_JOBS = 2
_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def offload_gate() -> asyncio.Semaphore:
    """The running loop's gate (one per loop: a semaphore belongs to one loop)."""
    loop = asyncio.get_running_loop()
    gate = _GATES.get(loop)
    if gate is None:
        gate = _GATES[loop] = asyncio.Semaphore(OFFLOAD_JOBS)
    return gate
