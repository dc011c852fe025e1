"""Child processes owned by the runtime: own process group, log to a file, stop by pid.

Children get ``PR_SET_PDEATHSIG`` (Linux) so they are signalled if the Python
parent dies without cleaning up (e.g. SIGKILL), leaving no orphans.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from agent_runtime.config.urls import public_url

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1


def _child_setup() -> None:  # runs in the child between fork and exec
    os.setpgid(0, 0)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        except OSError:
            pass


class ChildProcess:
    """An async context manager around one long-running child process."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        log_path: Path | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        stop_timeout: float = 5.0,
        capture: bool = False,
    ) -> None:
        if not argv:
            raise ValueError("argv must not be empty")
        self.name = name
        self.argv = list(argv)
        self.log_path = log_path
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.stop_timeout = stop_timeout
        self.capture = capture  # stdout+stderr on a pipe (``self.proc.stdout``) instead of a log
        self.proc: asyncio.subprocess.Process | None = None
        self._log_file: IO[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    async def start(self) -> None:
        if self.log_path is not None and not self.capture:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log_file = self.log_path.open("ab")
        out: IO[bytes] | int = asyncio.subprocess.DEVNULL
        if self.capture:
            out = asyncio.subprocess.PIPE
        elif self._log_file is not None:
            out = self._log_file
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=asyncio.subprocess.STDOUT,
            env=self.env,
            cwd=self.cwd,
            preexec_fn=_child_setup,
        )
        shown = " ".join(public_url(a) for a in self.argv)  # no secrets in logs
        log.info("started %s (pid %s): %s", self.name, self.proc.pid, shown)

    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def stop(self) -> int | None:
        """SIGTERM the process group, then SIGKILL after ``stop_timeout``; returns the exit code."""
        proc = self.proc
        if proc is None:
            return None
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), timeout=self.stop_timeout)
            except TimeoutError:
                log.warning("%s (pid %s) ignored SIGTERM; killing", self.name, proc.pid)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
        # the group may still hold children of a child that died abruptly
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return proc.returncode

    async def __aenter__(self) -> ChildProcess:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
