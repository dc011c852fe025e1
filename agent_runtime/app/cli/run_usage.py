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
from typing import Any

import psutil

__all__ = ["RunUsage", "kind"]

#: a process's kind from its command line: the first of these found in it names it
_KINDS = (
    ("gcs_server", "ray gcs"),
    ("raylet/raylet", "ray raylet"),
    ("ray::DashboardAgent", "ray dashboard agent"),
    ("ray::RuntimeEnvAgent", "ray runtime-env agent"),
    ("dashboard/dashboard.py", "ray dashboard"),
    ("log_monitor.py", "ray log monitor"),
    ("autoscaler/_private/monitor.py", "ray autoscaler monitor"),
    ("ray::IDLE", "ray idle worker"),
    ("ray::_RayServerActor", "ray actor (shard)"),
    ("ray::_RayWorkerActor", "ray actor (worker)"),
    ("bots/server/host.js", "minecraft server"),
    ("bots/body/", "body host"),
    ("javascript/js/bridge", "body host"),
    ("piano worker", "piano worker"),
    ("redis-server", "redis"),
    ("mosquitto", "mosquitto"),
)


def processes(roots: Iterable[int]) -> dict[int, psutil.Process]:
    """Every live process of ``roots`` and their descendants, by pid (each once)."""
    out: dict[int, psutil.Process] = {}
    for pid in roots:
        with contextlib.suppress(psutil.Error):
            root = psutil.Process(pid)
            for p in [root, *root.children(recursive=True)]:
                out.setdefault(p.pid, p)
    return out


def kind(cmdline: list[str]) -> str:
    """What a process of a run is, from its command line (``other`` when none fits)."""
    text = " ".join(cmdline)
    if "piano" in text and " worker " in f" {text} ":
        return "piano worker"
    for needle, name in _KINDS:
        if needle in text:
            return name
    return "other"


def _kinds(procs: dict[int, psutil.Process]) -> dict[int, str]:
    out: dict[int, str] = {}
    for pid, p in procs.items():
        with contextlib.suppress(psutil.Error):
            out[pid] = kind(p.cmdline())
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

    def result(self, roots: Iterable[int]) -> dict[str, Any]:
        procs = processes(roots)
        elapsed = max(1e-9, time.monotonic() - self._t0)
        cpu = _cpu_seconds(procs)
        used = sum(s - self._cpu0.get(pid, 0.0) for pid, s in cpu.items())
        rss = 0
        kinds = _kinds(procs)
        by_kind: dict[str, dict[str, float]] = {}
        for pid, p in procs.items():
            with contextlib.suppress(psutil.Error):
                mem = p.memory_info().rss
                rss += mem
                row = by_kind.setdefault(
                    kinds.get(pid, "other"), {"cpu_percent": 0.0, "rss_mb": 0.0, "processes": 0}
                )
                row["cpu_percent"] += 100 * (cpu.get(pid, 0.0) - self._cpu0.get(pid, 0.0)) / elapsed
                row["rss_mb"] += mem / 2**20
                row["processes"] += 1
        return {
            "cpu_percent": round(100 * used / elapsed, 1),
            "rss_mb": round(rss / 2**20, 1),
            "processes": len(procs),
            # the same by what each process is (kind()), most CPU first
            "by_kind": {
                k: {
                    "cpu_percent": round(r["cpu_percent"], 1),
                    "rss_mb": round(r["rss_mb"], 1),
                    "processes": int(r["processes"]),
                }
                for k, r in sorted(by_kind.items(), key=lambda kv: -kv[1]["cpu_percent"])
            },
        }
