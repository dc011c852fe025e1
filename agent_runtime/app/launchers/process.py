"""Workers as child processes of this one (``piano run --workers N`` on one machine)."""

from __future__ import annotations

import asyncio
import os

from agent_runtime.app.launchers.handles import WorkerHandle, WorkerLaunch
from agent_runtime.services.process import ChildProcess

__all__ = ["ProcessHandle", "ProcessLauncher"]


class ProcessHandle:
    """A worker that is a :class:`ChildProcess` of this process."""

    def __init__(self, child: ChildProcess) -> None:
        self.child = child

    @property
    def pid(self) -> int | None:
        return self.child.pid

    @property
    def node(self) -> str | None:
        return None

    async def wait(self) -> int | None:
        proc = self.child.proc
        assert proc is not None
        return await proc.wait()

    async def stop(self) -> int | None:
        return await self.child.stop()


class ProcessLauncher:
    """Starts each worker as a child process (own process group, parent-death signal);
    a worker that dies is started again after the pool's backoff."""

    name = "process"

    async def __aenter__(self) -> ProcessLauncher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def start(self, worker: WorkerLaunch) -> ProcessHandle:
        child = ChildProcess(
            f"worker[{worker.k}]",
            worker.argv,
            log_path=worker.log_path,
            env={**os.environ, **worker.env},
            stop_timeout=worker.stop_timeout,
        )
        await child.start()
        return ProcessHandle(child)

    async def restart(self, handle: WorkerHandle, backoff: float) -> ProcessHandle:
        assert isinstance(handle, ProcessHandle)
        child = handle.child
        await child.stop()  # close its log, reap its process group
        await asyncio.sleep(backoff)
        fresh = ChildProcess(
            child.name, child.argv, log_path=child.log_path, env=child.env,
            stop_timeout=child.stop_timeout,
        )  # fmt: skip
        await fresh.start()
        return ProcessHandle(fresh)
