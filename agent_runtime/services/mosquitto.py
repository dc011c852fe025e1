"""An embedded ``mosquitto`` broker child on a free loopback port."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from agent_runtime.services.ports import free_port, wait_for_port
from agent_runtime.services.process import ChildProcess
from agent_runtime.services.redis_server import ServiceError, find_binary


class MosquittoBroker:
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
        return f"mqtt://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    async def __aenter__(self) -> MosquittoBroker:
        binary = find_binary("mosquitto")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.port is None:
            self.port = free_port(self.host)
        conf = self.data_dir / "mosquitto.conf"
        conf.write_text(
            "\n".join(
                [
                    f"listener {self.port} {self.host}",
                    "allow_anonymous true",
                    # keep our uid: dropping privileges would clear PR_SET_PDEATHSIG (no orphans)
                    f"user {pwd.getpwuid(os.geteuid()).pw_name}",
                    "persistence false",
                    "log_dest stdout",
                    "log_type error",
                    "log_type warning",
                    "log_type notice",
                    "max_queued_messages 100000",
                    "",
                ]
            )
        )
        self._proc = ChildProcess(
            "mosquitto", [binary, "-c", str(conf)], log_path=self.data_dir / "mosquitto.log"
        )
        await self._proc.start()
        try:
            await wait_for_port(self.host, self.port, self.start_timeout)
        except TimeoutError:
            await self.__aexit__()
            raise ServiceError(
                f"mosquitto did not listen within {self.start_timeout}s; "
                f"see {self.data_dir / 'mosquitto.log'}"
            ) from None
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._proc is not None:
            await self._proc.stop()
