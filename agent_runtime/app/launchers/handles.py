"""What a launcher is (:class:`Launcher`) and what it hands back for each worker
(:class:`WorkerHandle`); the implementations are :mod:`.process` and :mod:`.ray_launcher`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_runtime.app.launchers.server_actor import ServerSettings

__all__ = ["Launcher", "ServerHandle", "ServerLauncher", "WorkerHandle", "WorkerLaunch"]


@dataclass(frozen=True)
class WorkerLaunch:
    """Worker ``k`` to start: ``argv`` with ``env`` added to the environment (secrets go
    there, never in ``argv``), its output appended to ``log_path``; stopping it waits
    ``stop_timeout`` before SIGKILL."""

    k: int
    argv: tuple[str, ...]
    env: Mapping[str, str]
    log_path: Path
    stop_timeout: float

    def __repr__(self) -> str:  # the environment's secrets stay out of logs
        return f"WorkerLaunch(k={self.k}, log_path={str(self.log_path)!r})"


class WorkerHandle(Protocol):
    """One started worker, as its launcher sees it."""

    @property
    def pid(self) -> int | None:
        """The ``piano worker`` process's pid (on its own node), if known."""

    @property
    def node(self) -> str | None:
        """The node it runs on (``None``: this machine's process tree)."""

    async def wait(self) -> int | None:
        """Return when this incarnation of the worker has ended: its exit code, or ``None``
        when it was lost (its node or its actor went away)."""

    async def stop(self) -> int | None:
        """Stop it for good (SIGTERM, then SIGKILL after the stop timeout); its exit code."""


class Launcher(Protocol):
    """Starts workers and brings back the ones that end early. An async context manager:
    entering may connect to (or start) a cluster; leaving disconnects (or shuts it down)."""

    name: str

    async def __aenter__(self) -> Launcher: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def start(self, worker: WorkerLaunch) -> WorkerHandle:
        """Start ``worker`` (see :class:`WorkerLaunch`)."""

    async def restart(self, handle: WorkerHandle, backoff: float) -> WorkerHandle:
        """``handle`` ended before the run did (:meth:`WorkerHandle.wait` returned): return
        the worker running again (the same handle or a new one). ``backoff`` is how long the
        pool would wait before starting it again itself."""


class ServerHandle(WorkerHandle, Protocol):
    """One world shard's server started by a :class:`ServerLauncher`."""

    info: dict[str, Any]  # what its current incarnation said: host, port, places, node, ...

    @property
    def address(self) -> str:
        """``HOST:PORT`` where bodies join it (the current incarnation's)."""


class ServerLauncher(Launcher, Protocol):
    """A launcher that also runs embedded world shards (``--cluster``: one actor each)."""

    @property
    def local(self) -> bool:
        """The cluster was started for this run on this machine (servers bind loopback)."""

    async def start_server(self, settings: ServerSettings) -> ServerHandle:
        """Start one shard's server; return once a client can join it."""
