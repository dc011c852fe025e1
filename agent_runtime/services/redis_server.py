"""An embedded ``redis-server`` child on a free loopback port, AOF on, data in the run folder."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from redis.asyncio import Redis
from redis.exceptions import RedisError

from agent_runtime.services.ports import free_port
from agent_runtime.services.process import ChildProcess


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


class RedisServer:
    def __init__(
        self,
        data_dir: Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        start_timeout: float = 15.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port
        self.start_timeout = start_timeout
        self._proc: ChildProcess | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    async def __aenter__(self) -> RedisServer:
        binary = find_binary("redis-server")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.port is None:
            self.port = free_port(self.host)
        argv = [
            binary,
            "--port",
            str(self.port),
            "--bind",
            self.host,
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--logfile",
            "",
            "--maxclients",
            "10000",
        ]
        self._proc = ChildProcess("redis-server", argv, log_path=self.data_dir / "redis.log")
        await self._proc.start()
        await self._wait_ready()
        return self

    async def _wait_ready(self) -> None:
        client: Redis = Redis(host=self.host, port=self.port or 0, socket_connect_timeout=1.0)
        try:
            async with asyncio.timeout(self.start_timeout):
                while True:
                    if self._proc is not None and not self._proc.running():
                        raise ServiceError(
                            f"redis-server exited at start; see {self.data_dir / 'redis.log'}"
                        )
                    try:
                        if await client.ping():
                            return
                    except (RedisError, OSError):
                        await asyncio.sleep(0.05)
        except TimeoutError:
            await self.__aexit__()
            raise ServiceError(
                f"redis-server did not answer PING within {self.start_timeout}s"
            ) from None
        finally:
            await client.aclose()

    async def __aexit__(self, *exc: object) -> None:
        if self._proc is not None:
            await self._proc.stop()
