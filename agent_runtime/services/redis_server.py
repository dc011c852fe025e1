"""An embedded ``redis-server`` child on a free loopback port, AOF on, data in the run folder.

With a ``password`` (required beyond loopback) the server asks every client for it
(``requirepass``, from a 0600 file in its data folder); :attr:`RedisServer.url` stays
without it, :attr:`RedisServer.secret_url` is what a client of this process connects to."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis
from redis.exceptions import RedisError

from agent_runtime.services.credentials import with_redis_password, write_private
from agent_runtime.services.service import LoopbackService, ServiceError, find_binary

__all__ = ["RedisServer", "ServiceError", "find_binary"]


class RedisServer(LoopbackService):
    binary = "redis-server"
    log_name = "redis.log"
    url_format = "redis://{host}:{port}/0"

    @property
    def secret_url(self) -> str:
        """:attr:`url` with the password in it (for clients; never show it)."""
        return with_redis_password(self.url, self.password) if self.password else self.url

    def command(self, binary: str) -> list[str]:
        auth: list[str] = []
        if self.password:  # in a 0600 file: a command line is visible to every local user
            conf = self.data_dir / "auth.conf"
            write_private(conf, f'requirepass "{self.password}"\n')
            auth = [str(conf)]  # redis-server takes its config file first
        return [
            binary,
            *auth,
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

    async def wait_ready(self) -> None:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        client: Redis = Redis(
            host=host, port=self.port or 0, password=self.password, socket_connect_timeout=1.0
        )
        try:
            async with asyncio.timeout(self.start_timeout):
                while True:
                    if self._proc is not None and not self._proc.running():
                        raise ServiceError(f"redis-server exited at start; see {self.log_path}")
                    try:
                        if await client.ping():
                            return
                    except (RedisError, OSError):
                        await asyncio.sleep(0.05)
        finally:
            await client.aclose()
