"""An embedded ``mosquitto`` broker child on a free loopback port."""

from __future__ import annotations

import os
import pwd

from agent_runtime.services.ports import wait_for_port
from agent_runtime.services.service import LoopbackService


class MosquittoBroker(LoopbackService):
    binary = "mosquitto"
    log_name = "mosquitto.log"
    url_format = "mqtt://{host}:{port}"

    def command(self, binary: str) -> list[str]:
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
        return [binary, "-c", str(conf)]

    async def wait_ready(self) -> None:
        assert self.port is not None
        await wait_for_port(self.host, self.port, self.start_timeout)
