"""``WebView``: the live page as a child process of the village.

The page runs in its own process (``python -m agent_runtime.app.web live``) under
``ChildProcess``: it subscribes to the run's MQTT topics and reads Redis itself, so
the agents' event loop does no work for it. Entering picks a free loopback port (unless
one is given), starts the child and waits until it answers; leaving stops it by pid.
If it does not come up, the village goes on without it (the reason is logged).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

from agent_runtime.app.workers import ADMIN_URL_ENV
from agent_runtime.services.ports import free_port, wait_for_port
from agent_runtime.services.process import ChildProcess

__all__ = ["WebView"]

log = logging.getLogger(__name__)


def _bindable(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


@dataclass(eq=False, kw_only=True)
class WebView:
    run_id: str
    redis_url: str
    mqtt_url: str
    run_dir: Path
    admin_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 0
    start_timeout: float = 30.0
    url: str | None = field(default=None, init=False)
    error: str | None = field(default=None, init=False)
    _child: ChildProcess | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.port < 0 or self.port > 65535:
            raise ValueError("port must be 0..65535")

    @property
    def pid(self) -> int | None:
        return self._child.pid if self._child is not None else None

    def argv(self, port: int) -> list[str]:
        argv = [sys.executable, "-m", "agent_runtime.app.web", "live"]
        argv += ["--run-id", self.run_id, "--redis", self.redis_url, "--mqtt", self.mqtt_url]
        argv += ["--run-dir", str(self.run_dir), "--host", self.host, "--port", str(port)]
        return argv  # the admin URL carries a token: it goes in the environment, not here

    async def __aenter__(self) -> WebView:
        port = self.port or free_port(self.host)
        if self.port and not _bindable(self.host, port):  # else we would probe someone else
            self.error = f"the web page's port {self.host}:{port} is in use"
            log.warning("%s", self.error)
            return self
        env = dict(os.environ)
        env.pop(ADMIN_URL_ENV, None)
        if self.admin_url:
            env[ADMIN_URL_ENV] = self.admin_url
        child = ChildProcess(
            "web",
            self.argv(port),
            log_path=self.run_dir / "logs" / "web.log",
            env=env,
            stop_timeout=5.0,
        )
        await child.start()
        self._child = child
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.start_timeout
        while True:
            try:
                await wait_for_port(self.host, port, 0.5)
                break
            except TimeoutError:
                if child.running() and loop.time() < deadline:
                    continue
            self.error = f"the web page did not start; see {child.log_path}"
            log.warning("%s", self.error)
            await child.stop()
            self._child = None
            return self
        self.port = port
        self.url = f"http://{self.host}:{port}/"
        return self

    async def __aexit__(self, *exc: object) -> None:
        child, self._child = self._child, None
        if child is not None:
            await asyncio.shield(child.stop())
