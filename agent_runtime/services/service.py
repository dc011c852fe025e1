"""One embedded service: a :class:`ChildProcess` on a loopback port, ready when it answers.

Subclasses say which binary, which arguments and how to check readiness; this class owns
the data folder, the port, the process and its stop. Services listen on loopback unless the
caller passes another host, and then only with a password (``ServiceError`` without one:
nothing listens beyond loopback without a key). :meth:`LoopbackService.supervise` restarts a service that dies
(same port, same data folder, 0.5 s doubling up to 10 s while restarts fail: :mod:`supervised`)
until the service is stopped.
"""

from __future__ import annotations

import abc
import asyncio
import logging
import shutil
from pathlib import Path
from typing import Self

from agent_runtime.services.credentials import is_loopback
from agent_runtime.services.ports import free_port
from agent_runtime.services.process import ChildProcess
from agent_runtime.services.supervised import Supervised

log = logging.getLogger(__name__)


class ServiceError(RuntimeError):
    """An embedded service could not be started; the message says why."""


def find_binary(name: str, extra_dirs: tuple[str, ...] = ("/usr/sbin", "/usr/bin")) -> str:
    found = shutil.which(name)
    if found:
        return found
    for d in extra_dirs:
        p = Path(d) / name
        if p.exists():
            return str(p)
    raise ServiceError(f"{name} is not installed (apt-get install {name.split('-')[0]}-server?)")


class LoopbackService(Supervised):
    start_error = ServiceError
    binary: str  # the executable's name, looked up on PATH and in /usr/sbin
    log_name: str  # the log file in data_dir
    url_format: str  # the clients' URL, from {host} and {port}

    def __init__(
        self,
        data_dir: Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        start_timeout: float = 15.0,
        password: str | None = None,
        user: str = "piano",
    ) -> None:
        if not is_loopback(host) and not password:
            raise ServiceError(
                f"refusing to start {self.binary} on {host}: a listener beyond loopback needs "
                "credentials (agent_runtime/services/credentials.py)"
            )
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port
        self.start_timeout = start_timeout
        self.password = password  # never logged: it goes to a 0600 file, not the command line
        self.user = user  # the broker's user name (Redis: the default user)
        self._proc: ChildProcess | None = None
        self._stopping = False
        self.restarts = 0

    @property
    def url(self) -> str:
        return self.url_format.format(host=self.host, port=self.port)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def log_path(self) -> Path:
        return self.data_dir / self.log_name

    def running(self) -> bool:
        return self._proc is not None and self._proc.running()

    @abc.abstractmethod
    def command(self, binary: str) -> list[str]:
        """The argv that starts the service on ``self.host:self.port``."""

    @abc.abstractmethod
    async def wait_ready(self) -> None:
        """Return when the service answers; raise ``TimeoutError`` after ``start_timeout``."""

    async def __aenter__(self) -> Self:
        self._stopping = False
        await self._start()
        return self

    async def _start(self) -> None:
        binary = find_binary(self.binary)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.port is None:
            self.port = free_port(self.host)
        self._proc = ChildProcess(self.binary, self.command(binary), log_path=self.log_path)
        await self._proc.start()
        try:
            await self.wait_ready()
        except (TimeoutError, ServiceError) as err:
            await self._proc.stop()
            if isinstance(err, ServiceError):
                raise
            raise ServiceError(
                f"{self.binary} did not answer within {self.start_timeout}s; see {self.log_path}"
            ) from None

    async def __aexit__(self, *exc: object) -> None:
        self._stopping = True
        if self._proc is not None:
            await self._proc.stop()

    def _running(self) -> asyncio.subprocess.Process | None:
        return self._proc.proc if self._proc is not None else None

    def _stop_asked(self) -> bool:
        return self._stopping

    def _name(self) -> str:
        return self.binary

    async def _exited(self) -> None:
        if self._proc is not None:
            await self._proc.stop()  # close its log, reap what is left of its group

    async def _start_again(self) -> None:
        await self._start()

    def _restarted(self, code: int) -> str:
        return f"{self.binary} exited with {code} and was restarted on port {self.port}"
