"""What this process and every process it started cost, measured over a window: CPU (as a
share of one core) and resident memory. The benches report it so that ``piano plan`` sizes
machines from measured costs (servers, bot hosts, Redis and the broker included)."""

from __future__ import annotations

import time

import psutil

__all__ = ["TreeUsage"]


def _tree() -> list[psutil.Process]:
    me = psutil.Process()
    return [me, *me.children(recursive=True)]


def _cpu_seconds(procs: list[psutil.Process]) -> dict[int, float]:
    out = {}
    for p in procs:
        try:
            t = p.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        out[p.pid] = t.user + t.system
    return out


class TreeUsage:
    """Opened at the start of a measured window; :meth:`result` at its end. A process that
    ended within the window is not counted; one that started within it counts from its start."""

    def __init__(self) -> None:
        self._t0 = time.monotonic()
        self._cpu0 = _cpu_seconds(_tree())

    def result(self) -> dict[str, float | int]:
        procs = _tree()
        elapsed = max(1e-9, time.monotonic() - self._t0)
        cpu = _cpu_seconds(procs)
        used = sum(s - self._cpu0.get(pid, 0.0) for pid, s in cpu.items())
        rss = 0
        for p in procs:
            try:
                rss += p.memory_info().rss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return {
            "processes": len(cpu),
            "cpu_percent": round(100 * used / elapsed, 1),  # of one core
            "rss_mb": round(rss / 2**20, 1),
        }
