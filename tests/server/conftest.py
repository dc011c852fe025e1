"""Fixtures for the embedded-server tests: a real server per test and plain mineflayer bots.

Bots are ``tests/server/js/driver.js`` processes run by the wheel's Node; the
test talks to each over JSON lines (requests on stdin, replies and events on
stdout). Every wait has a timeout; servers and bots are stopped by pid.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import pytest

from agent_runtime.config.models import DEFAULT_VERSION
from agent_runtime.services.process import ChildProcess
from bots.admin import AdminClient
from bots.node import BOTS_DIR, node_env, node_executable
from bots.server_host import EmbeddedServer
from bots.server_options import ServerOptions

JS = Path(__file__).parent / "js"
DRIVER = JS / "driver.js"


def run_js(script: str, *args: object, timeout: float = 60) -> Any:
    """Run ``js/<script>`` under the bots' Node with ``args`` as JSON; its stdout as JSON."""
    out = subprocess.run(
        [str(node_executable()), str(JS / script), *(json.dumps(a) for a in args)],
        cwd=BOTS_DIR,
        env=node_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return json.loads(out.stdout)


class BotError(RuntimeError):
    pass


class JsBot:
    """One mineflayer bot in its own Node process."""

    def __init__(
        self, port: int, username: str, *, host: str = "127.0.0.1", version: str = DEFAULT_VERSION
    ) -> None:
        self.port = port
        self.username = username
        self.host = host
        self.version = version
        self.events: list[dict[str, Any]] = []
        self._event_signal = asyncio.Event()
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next = 0
        self._child: ChildProcess | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self.spawn_info: dict[str, Any] = {}
        self._found: dict[str, Any] = {}

    async def start(self, within: float = 20.0) -> JsBot:
        env = node_env()
        env["PIANO_NODE_MODULES"] = str(BOTS_DIR / "node_modules")
        opts = {
            "host": self.host,
            "port": self.port,
            "username": self.username,
            "version": self.version,
        }
        self._child = ChildProcess(
            f"bot[{self.username}]",
            [str(node_executable()), str(DRIVER), json.dumps(opts)],
            env=env,
            capture=True,
            pipe_stdin=True,
        )
        await self._child.start()
        self._proc = self._child.proc
        self._reader = asyncio.create_task(self._read(), name=f"bot[{self.username}].reader")
        self.spawn_info = await self.wait_event("spawned", within=within)
        return self

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while True:
            line = await self._proc.stdout.readline()
            if not line:
                break
            try:
                msg = json.loads(line)
            except ValueError:
                self.events.append({"event": "stderr", "line": line.decode(errors="replace")})
                continue
            if "id" in msg and msg["id"] in self._pending:
                fut = self._pending.pop(msg["id"])
                if not fut.done():
                    if msg.get("ok"):
                        fut.set_result(msg.get("result"))
                    else:
                        fut.set_exception(BotError(msg.get("error", "unknown error")))
            else:
                self.events.append(msg)
                self._event_signal.set()
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(BotError(f"bot process ended; events: {self.events[-5:]}"))

    async def call(self, action: str, within: float = 30.0, **args: Any) -> Any:
        assert self._proc is not None and self._proc.stdin is not None
        self._next += 1
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[self._next] = fut
        self._proc.stdin.write(
            (json.dumps({"id": self._next, "action": action, "args": args}) + "\n").encode()
        )
        await self._proc.stdin.drain()
        async with asyncio.timeout(within):
            return await fut

    async def wait_event(
        self,
        name: str,
        within: float = 10.0,
        predicate: Callable[[dict[str, Any]], bool] = lambda e: True,
    ) -> dict[str, Any]:
        seen = 0
        try:
            async with asyncio.timeout(within):
                await self._wait_event_loop(name, predicate, seen)
        except TimeoutError:
            raise BotError(
                f"bot {self.username}: no {name!r} event in {within}s; last events: {self.events[-8:]}"
            ) from None
        return self._found

    async def _wait_event_loop(
        self, name: str, predicate: Callable[[dict[str, Any]], bool], seen: int
    ) -> None:
        if True:
            while True:
                for e in self.events[seen:]:
                    if e.get("event") == name and predicate(e):
                        self._found = e
                        return
                    if e.get("event") in ("end", "kicked") and name not in ("end", "kicked"):
                        raise BotError(f"bot {self.username} disconnected: {e}")
                seen = len(self.events)
                self._event_signal.clear()
                await self._event_signal.wait()

    async def close(self) -> None:
        if self._child is None:
            return
        await self._child.stop(eof_grace=5)
        if self._reader is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self._reader
        self._proc = None
        self._child = None


@pytest.fixture
def mc_version() -> str:
    """The Minecraft version the ``server`` fixture serves (tests parametrise it)."""
    return DEFAULT_VERSION


@pytest.fixture
async def server(tmp_path: Path, mc_version: str) -> AsyncIterator[EmbeddedServer]:
    options = ServerOptions(seed=1234, furnace_cook_ticks=40, version=mc_version)
    srv = EmbeddedServer(tmp_path / "world", options, log_path=tmp_path / "server.log")
    async with srv:
        yield srv


@pytest.fixture
async def admin(server: EmbeddedServer) -> AsyncIterator[AdminClient]:
    assert server.admin_url is not None
    async with AdminClient(server.admin_url) as client:
        yield client


class BotFactory(Protocol):
    """``await make_bot(name, oak_log=12)``: a started bot that holds the items given."""

    def __call__(self, username: str, **items: int) -> Awaitable[JsBot]: ...


@pytest.fixture
async def make_bot(server: EmbeddedServer, admin: AdminClient) -> AsyncIterator[BotFactory]:
    bots: list[JsBot] = []

    async def make(username: str, **items: int) -> JsBot:
        bot = JsBot(server.port, username, version=server.options.version)
        bots.append(bot)
        await bot.start()
        for item, count in items.items():
            gave = await admin.command(f"/give {username} {item} {count}")
            assert gave is not None and item in gave, gave
            await bot.call("wait_count", item=item, atLeast=count)
        return bot

    yield make
    await asyncio.gather(*(b.close() for b in bots))


def counts(items: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        out[it["name"]] = out.get(it["name"], 0) + int(it["count"])
    return out
