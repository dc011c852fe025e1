"""The body of one worker actor (wrapped by ``ray.remote`` in :mod:`.ray_launcher`).

The actor runs its ``piano worker`` as a child process: its own process group, and a
parent-death signal (``setpriv --pdeathsig TERM``) so that the child is told to stop when
the actor's process goes away with its node. The child is started by, and waited on in, one
thread the actor owns for the child's whole life (the parent-death signal follows the
thread that started the child, not the process).

A child that ends while nobody asked it to stop ends the actor's process too
(``os._exit``), so that Ray restarts the actor (``max_restarts``) and with it the worker:
the engine's restart replaces the pool's hand-written one. This module does not import
Ray: where an actor runs (:class:`Placement`) is what the launcher's subclass answers
from :meth:`OwningActor.place`. :class:`OwningActor` is what the worker's and the world
shard's actor (:mod:`.server_actor`) share.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.clock import wall_time
from agent_runtime.services.process import _pdeathsig_prefix

__all__ = ["OwningActor", "Placement", "WorkerActor", "renice"]

log = logging.getLogger(__name__)

#: after an unexpected exit, the actor's process ends this long after its ``wait_exit``
#: answered (so the exit code reaches the pool before the actor is gone)
EXIT_GRACE_S = 0.5


@dataclass(frozen=True)
class Placement:
    """Where an actor runs, as its engine says (outside one: nowhere in particular)."""

    node: str | None = None
    node_ip: str = "127.0.0.1"
    reconstructed: bool = False  # a later incarnation: the engine restarted the actor


class OwningActor:
    """An actor that owns one child for the child's whole life on one thread of its own.

    It knows where it runs (:meth:`place`) and since when. Its subclass starts the thread
    with :meth:`_start_owner`, which returns once the thread has set ``_started``: the
    child runs, or the thread failed (``_error``, raised there)."""

    _thread: threading.Thread  # the owning thread, from :meth:`_start_owner` on

    def __init__(self) -> None:
        self.placement = self.place()
        self.started_at = wall_time()
        self._error: BaseException | None = None
        self._started = threading.Event()
        self._exited = threading.Event()

    def place(self) -> Placement:
        """Where this actor runs: the launcher's subclass asks its engine."""
        return Placement()

    def _start_owner(self, own: Callable[[], None], name: str) -> None:
        self._thread = threading.Thread(target=own, name=name, daemon=True)
        self._thread.start()
        self._started.wait()
        if self._error is not None:
            raise self._error

    def _whereabouts(self) -> dict[str, Any]:
        """The actor's pid, node, incarnation and start, for its ``info``."""
        return {
            "actor_pid": os.getpid(),
            "node": self.placement.node,
            "reconstructed": self.placement.reconstructed,
            "started_at": self.started_at,
        }


class WorkerActor(OwningActor):
    """Runs one ``piano worker`` child; ``wait_exit`` returns its exit code."""

    def __init__(
        self,
        k: int,
        argv: Sequence[str],
        env: Mapping[str, str],
        log_path: str,
        stop_timeout: float,
        cwd: str | None = None,
        nice: int | None = None,
    ) -> None:
        super().__init__()
        self.k = k
        self.argv = list(argv)
        self.env = {**os.environ, **env}
        self.log_path = Path(log_path)
        self.stop_timeout = stop_timeout
        self.cwd = cwd if cwd is not None and os.path.isdir(cwd) else None
        self.nice = nice
        self._stopping = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None
        self._start_owner(self._own_child, f"worker[{k}]")

    def _own_child(self) -> None:
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("ab") as out:
                self._proc = subprocess.Popen(
                    [*_pdeathsig_prefix(), *self.argv],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=self.env,
                    cwd=self.cwd,
                    process_group=0,
                )
        except BaseException as err:  # reported by __init__
            self._error = err
            self._started.set()
            return
        self._renice(self._proc.pid)
        self._started.set()
        self._proc.wait()
        self._exited.set()
        if not self._stopping.is_set():  # died by itself: let Ray restart the actor
            time.sleep(EXIT_GRACE_S)
            if not self._stopping.is_set():
                os._exit(1)

    def _renice(self, pid: int) -> None:
        """Run the worker at the coordinator's niceness, not the actor's (Ray's workers run
        at 15 unless the cluster says otherwise: ``RAY_worker_niceness=0``)."""
        renice(pid, self.nice, f"worker {self.k}")

    def info(self) -> dict[str, Any]:
        """Who runs where: the child's pid, the actor's pid, node and incarnation."""
        return {
            "k": self.k,
            "pid": self._proc.pid if self._proc is not None else None,
            **self._whereabouts(),
            "nice": _priority(self._proc.pid) if self._proc else None,
        }

    def wait_exit(self) -> int | None:
        """Block until the child has exited; its exit code."""
        self._exited.wait()
        return self._proc.returncode if self._proc is not None else None

    def stop(self) -> int | None:
        """SIGTERM the child's process group, SIGKILL after ``stop_timeout``; exit code."""
        self._stopping.set()
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            _killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                log.warning("worker %d (pid %d) ignored SIGTERM; killing", self.k, proc.pid)
                _killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        _killpg(proc.pid, signal.SIGKILL)  # what is left of its group
        self._exited.wait()
        return proc.returncode


def renice(pid: int | None, nice: int | None, what: str) -> None:
    """Set process ``pid``'s niceness to ``nice`` (``None``: leave it); a warning naming
    ``what`` when that is not allowed."""
    if pid is None or nice is None or nice == _priority(pid):
        return
    try:
        os.setpriority(os.PRIO_PROCESS, pid, nice)
    except OSError as err:  # lowering niceness needs CAP_SYS_NICE
        log.warning(
            "%s runs at niceness %s, not %d (%s): start Ray with RAY_worker_niceness=0",
            what, _priority(pid), nice, err,
        )  # fmt: skip


def _priority(pid: int) -> int | None:
    try:
        return os.getpriority(os.PRIO_PROCESS, pid)
    except OSError:  # gone
        return None


def _killpg(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
