"""An embedded ``mosquitto`` broker child on a free loopback port.

With a ``password`` (required beyond loopback) anonymous clients are refused and ``user``
logs in with it (a hashed password file, 0600, in the broker's data folder)."""

from __future__ import annotations

import os
import pwd

from agent_runtime.services.credentials import mosquitto_password_line, write_private
from agent_runtime.services.ports import wait_for_port
from agent_runtime.services.service import LoopbackService


class MosquittoBroker(LoopbackService):
    binary = "mosquitto"
    log_name = "mosquitto.log"
    url_format = "mqtt://{host}:{port}"

    def command(self, binary: str) -> list[str]:
        conf = self.data_dir / "mosquitto.conf"
        auth = ["allow_anonymous true"]
        if self.password:  # a hashed entry in a 0600 file; clients log in as self.user
            passwd = self.data_dir / "passwd"
            write_private(passwd, mosquitto_password_line(self.user, self.password) + "\n")
            auth = ["allow_anonymous false", f"password_file {passwd}"]
        conf.write_text(
            "\n".join(
                [
                    f"listener {self.port} {self.host}",
                    *auth,
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
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        await wait_for_port(host, self.port, self.start_timeout)
