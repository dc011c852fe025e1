"""What the processes of a run cost over a window, wherever they were started: CPU (as a share
of one core) and resident memory of given root processes and everything they started.

``piano bench village --workers/--cluster`` measures its coordinator, its workers and its
shard servers this way: a worker or a server that is a Ray actor's child is not in the
bench's own process tree (:class:`agent_runtime.app.proc_tree.TreeUsage`), but its pid is
known. Ray's own processes (raylets, the GCS, the actors' hosts) are not counted, unless
they are a root's descendants (a local Ray this process started: ``--ray-nodes``)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable

import psutil

__all__ = ["RunUsage"]


def processes(roots: Iterable[int]) -> dict[int, psutil.Process]:
    """Every live process of ``roots`` and their descendants, by pid (each once)."""
    out: dict[int, psutil.Process] = {}
    for pid in roots:
        with contextlib.suppress(psutil.Error):
            root = psutil.Process(pid)
            for p in [root, *root.children(recursive=True)]:
                out.setdefault(p.pid, p)
    return out


def _cpu_seconds(procs: dict[int, psutil.Process]) -> dict[int, float]:
    out: dict[int, float] = {}
    for pid, p in procs.items():
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            out[pid] = t.user + t.system
    return out


class RunUsage:
    """Opened at the start of a window with the roots' pids; :meth:`result` at its end with
    the roots then (a restarted worker has a new pid). A process that started within the
    window counts from its start; one that ended within it is not counted."""

    def __init__(self, roots: Iterable[int]) -> None:
        self._t0 = time.monotonic()
        self._cpu0 = _cpu_seconds(processes(roots))

    def result(self, roots: Iterable[int]) -> dict[str, float | int]:
        procs = processes(roots)
        elapsed = max(1e-9, time.monotonic() - self._t0)
        cpu = _cpu_seconds(procs)
        used = sum(s - self._cpu0.get(pid, 0.0) for pid, s in cpu.items())
        rss = 0
        for p in procs.values():
            with contextlib.suppress(psutil.Error):
                rss += p.memory_info().rss
        return {
            "cpu_percent": round(100 * used / elapsed, 1),
            "rss_mb": round(rss / 2**20, 1),
            "processes": len(procs),
        }
