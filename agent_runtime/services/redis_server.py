"""An embedded ``redis-server`` child on a free loopback port, AOF on, data in the run folder."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis
from redis.exceptions import RedisError

from agent_runtime.services.service import LoopbackService, ServiceError, find_binary

__all__ = ["RedisServer", "ServiceError", "find_binary"]


class RedisServer(LoopbackService):
    binary = "redis-server"
    log_name = "redis.log"
    url_format = "redis://{host}:{port}/0"

    def command(self, binary: str) -> list[str]:
        return [
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

    async def wait_ready(self) -> None:
        client: Redis = Redis(host=self.host, port=self.port or 0, socket_connect_timeout=1.0)
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
