"""Child processes owned by the runtime: own process group, log to a file, stop by pid.

Children get ``PR_SET_PDEATHSIG`` (Linux) so they are signalled if the Python
parent dies without cleaning up (e.g. SIGKILL), leaving no orphans.

No Python code runs between fork and exec (no ``preexec_fn``): the process group is
``process_group=0`` and the parent-death signal is set by util-linux's ``setpriv``, which
then execs the command. A ``preexec_fn`` makes CPython fork() with every atfork handler,
and OpenBLAS's handler waits for its thread pool: a village encoding memories with numpy
in worker threads while it started a child hung forever in ``blas_thread_shutdown_``
(seen in CI: ``piano experiment`` stuck starting its Redis). Without one, CPython uses
vfork(), which runs no atfork handlers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shutil
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from agent_runtime.config.urls import public_url

log = logging.getLogger(__name__)


@functools.cache
def _pdeathsig_prefix() -> tuple[str, ...]:
    """``setpriv --pdeathsig TERM --`` where it exists (Linux, util-linux), else nothing."""
    if not sys.platform.startswith("linux"):
        return ()
    setpriv = shutil.which("setpriv")
    return (setpriv, "--pdeathsig", "TERM", "--") if setpriv else ()


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
        pipe_stdin: bool = False,
        quiet_stderr: bool = False,
        limit: int = 2**16,
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
        self.pipe_stdin = pipe_stdin  # ``self.proc.stdin`` to write to (else /dev/null)
        self.quiet_stderr = quiet_stderr  # stderr to /dev/null (a pipe of protocol lines)
        self.limit = limit  # the captured stdout's line limit (asyncio's default, 64 KiB)
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

        stdin = asyncio.subprocess.PIPE if self.pipe_stdin else asyncio.subprocess.DEVNULL
        stderr = asyncio.subprocess.DEVNULL if self.quiet_stderr else asyncio.subprocess.STDOUT

        async def spawn(**group: Any) -> asyncio.subprocess.Process:
            return await asyncio.create_subprocess_exec(
                *_pdeathsig_prefix(),
                *self.argv,
                stdin=stdin,
                stdout=out,
                stderr=stderr,
                env=self.env,
                cwd=self.cwd,
                limit=self.limit,
                **group,
            )

        if isinstance(asyncio.get_running_loop(), asyncio.BaseEventLoop):
            self.proc = await spawn(process_group=0)
        else:
            # uvloop (opt-in, agent_runtime/event_loop.py) has no process_group: a new
            # session is a new group too (libuv forks with the atfork handlers: see there)
            self.proc = await spawn(start_new_session=True)
        shown = " ".join(public_url(a) for a in self.argv)  # no secrets in logs
        log.info("started %s (pid %s): %s", self.name, self.proc.pid, shown)

    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def stop(self, *, eof_grace: float = 0.0) -> int | None:
        """SIGTERM the process group, then SIGKILL after ``stop_timeout``; returns the exit code.

        With ``eof_grace`` (and ``pipe_stdin``) the child is first asked the polite way: its
        stdin is closed and it has that long to exit by itself."""
        proc = self.proc
        if proc is None:
            return None
        if eof_grace > 0 and proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
            try:
                async with asyncio.timeout(eof_grace):
                    await proc.wait()
            except TimeoutError:
                log.warning("%s (pid %s) did not exit at the end of its input", self.name, proc.pid)
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
