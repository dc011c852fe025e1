"""Run the embedded Minecraft server (flying-squid + our plugins) as a child process.

It serves Minecraft ``options.version`` (``DEFAULT_VERSION`` unless told another).

``EmbeddedServer`` is an async context manager::

    options = ServerOptions(seed=7)  # bots.server_options: where, what world, what limits
    async with EmbeddedServer(run_dir / "world", options, log_path=run_dir / "server.log") as srv:
        print(srv.port, srv.admin_url, srv.places["town_hall"])

``__aenter__`` starts ``node bots/server/host.js`` (the wheel's Node 22, in its
own process group), streams its output into ``log_path``, waits for the host's
``PIANO_READY`` line and then checks with a Minecraft status ping that a client
can connect. ``__aexit__`` stops it by process id: SIGTERM (the host saves
players, containers and chunks), then SIGKILL after ``options.stop_timeout``. The Node
host also exits by itself if this Python process dies. The world lives in
``world_dir``; starting again on the same folder continues it. Nothing is
installed at run time: ``bots/node_modules`` must exist (``npm ci`` in bots/).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import time
from pathlib import Path
from typing import IO, Any

from agent_runtime.config.layout import Place
from agent_runtime.services.process import ChildProcess
from agent_runtime.services.supervised import Supervised
from bots.body_key import BODY_KEY_NAME, ensure_key_file
from bots.node import BOTS_DIR, node_env, node_executable, require_node_modules
from bots.server_options import ServerOptions
from bots.status_ping import protocol_of, status_ping

__all__ = [
    "EmbeddedServer",
    "EmbeddedServerError",
]

logger = logging.getLogger(__name__)

HOST_JS = BOTS_DIR / "server" / "host.js"


_READY = "PIANO_READY "
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class EmbeddedServerError(RuntimeError):
    """The embedded server failed to start or stopped unexpectedly (message has the log tail)."""


class EmbeddedServer(Supervised):
    """The embedded flying-squid server on a generated village (see module docstring)."""

    first_backoff = 1.0
    max_backoff = 30.0
    start_error = EmbeddedServerError

    def __init__(
        self, world_dir: Path, options: ServerOptions | None = None, *, log_path: Path | None = None
    ) -> None:
        self.options = options if options is not None else ServerOptions()
        # any version minecraft-data knows (a village's world.version is checked against
        # SUPPORTED_VERSIONS at config time; tests also try the newer ones)
        self.protocol = protocol_of(self.options.version)
        self.world_dir = Path(world_dir)
        self.log_path = Path(log_path) if log_path is not None else None
        self._child: ChildProcess | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._stopping = False  # set while stop() runs: the supervisor must not restart
        self.admin_token = secrets.token_urlsafe(24)  # per run; kept across restarts
        self.restarts = 0
        self._reader: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[dict[str, Any]] | None = None
        self._info: dict[str, Any] = {}
        self._tail: list[str] = []
        self._log: IO[str] | None = None
        self.start_seconds: float | None = None

    # ---- public state ----
    @property
    def port(self) -> int:
        if not self._info:
            raise EmbeddedServerError("server not started")
        return int(self._info["port"])

    @property
    def address(self) -> str:
        """``host:port`` a Minecraft client of :attr:`version` can join."""
        return f"{self.options.host}:{self.port}"

    @property
    def admin_url(self) -> str | None:
        """The admin API with its token as the URL's password (never print it as it is:
        see :attr:`admin_address`)."""
        admin = self._info.get("adminPort")
        return f"http://piano:{self.admin_token}@127.0.0.1:{admin}" if admin else None

    @property
    def admin_address(self) -> str | None:
        """The admin API's address without its token, for people and logs."""
        admin = self._info.get("adminPort")
        return f"http://127.0.0.1:{admin}" if admin else None

    @property
    def admin_token_file(self) -> Path:
        """Where the per-run token is kept (mode 0600, in the world's run folder)."""
        return self.world_dir / "admin.token"

    @property
    def body_key_file(self) -> Path:
        """The run's body key (mode 0600): bodies given its path prove their agent's name at
        login (bots/body_key.py)."""
        return self.options.body_key_file or self.world_dir / BODY_KEY_NAME

    @property
    def places(self) -> dict[str, Place]:
        """Named places of the generated village (town_hall, farm, pasture, forest, cave, ...)."""
        return {p["name"]: Place(**p) for p in self._info.get("places", [])}

    @property
    def community_chests(self) -> list[tuple[int, int, int]]:
        return [(c["x"], c["y"], c["z"]) for c in self._info.get("chests", [])]

    @property
    def spawn(self) -> tuple[int, int, int]:
        s = self._info["spawn"]
        return (int(s["x"]), int(s["y"]), int(s["z"]))

    @property
    def info(self) -> dict[str, Any]:
        """The host's READY record (ports, seed, places, chests, startMs, worldGenMs, ...)."""
        return dict(self._info)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    # ---- lifecycle ----
    async def __aenter__(self) -> EmbeddedServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _settings(self) -> dict[str, Any]:
        o = self.options
        port = o.port
        if self._info:  # restart: keep the ports we had
            port = self._info["port"]
        admin_port: int | None
        if not o.admin:
            admin_port = None
        elif self._info.get("adminPort"):
            admin_port = int(self._info["adminPort"])
        else:
            admin_port = o.admin_port or 0
        return {
            "worldDir": str(self.world_dir.resolve()),
            "host": o.host,
            "port": 0 if port is None else port,
            "motd": o.motd,
            "maxPlayers": o.max_players,
            "viewDistance": o.view_distance,
            "seed": o.seed,
            "version": o.version,
            "layout": o.layout.to_generator(),
            "adminHost": "127.0.0.1",
            "adminPort": admin_port,
            "adminTokenFile": str(self.admin_token_file.resolve()),
            "pregenRadius": o.pregen_radius,
            "parentPid": os.getpid(),
            "furnaceCookTicks": o.furnace_cook_ticks,
            "compressionThreshold": o.compression_threshold,
            "bodyKeyFile": str(self.body_key_file.resolve()),
            "agentNames": list(o.agent_names),
        }

    async def start(self) -> None:
        """Start the server and wait until a client can connect."""
        self._stopping = False
        if self.running:
            raise EmbeddedServerError("already running")
        require_node_modules()
        node = node_executable()
        self.world_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.admin_token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.admin_token)
        os.chmod(self.admin_token_file, 0o600)  # also when the file existed with other bits
        ensure_key_file(self.body_key_file)
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = await asyncio.to_thread(open, self.log_path, "a", encoding="utf-8")
        env = node_env()
        env["FORCE_COLOR"] = "0"
        t0 = time.monotonic()
        self._tail = []
        self._child = ChildProcess(
            "embedded-server",
            [str(node), str(HOST_JS), json.dumps(self._settings())],
            cwd=BOTS_DIR,
            env=env,
            capture=True,
            stop_timeout=self.options.stop_timeout,
        )
        await self._child.start()  # own process group: stop() signals the whole group
        self._proc = self._child.proc
        assert self._proc is not None
        logger.info("embedded server starting (pid %s, world %s)", self._proc.pid, self.world_dir)
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._reader = asyncio.create_task(self._read_output(), name="embedded-server.log")
        try:
            async with asyncio.timeout(self.options.start_timeout):
                info = await self._ready
                self._info = info
                await self._wait_pingable()
        except BaseException as exc:
            await self.stop()
            if isinstance(exc, TimeoutError):
                raise EmbeddedServerError(
                    f"server not ready after {self.options.start_timeout}s; log tail:\n{self._tail_text()}"
                ) from None
            raise
        self.start_seconds = time.monotonic() - t0
        logger.info(
            "embedded server ready on %s in %.2fs (admin %s)",
            self.address,
            self.start_seconds,
            self.admin_address,
        )

    async def _wait_pingable(self) -> None:
        delay = 0.05
        host = self.options.host if self.options.host != "0.0.0.0" else "127.0.0.1"
        while True:
            try:
                status = await status_ping(host, self.port)
            except (OSError, EmbeddedServerError, asyncio.IncompleteReadError, ValueError) as exc:
                logger.debug("status ping failed: %s", exc)
            else:
                if status.get("version", {}).get("protocol") == self.protocol:
                    return
                raise EmbeddedServerError(f"unexpected server version: {status.get('version')}")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)

    def _tail_text(self) -> str:
        return "\n".join(self._tail[-40:])

    async def _read_output(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        try:
            while True:
                raw = await proc.stdout.readline()
                if not raw:
                    break
                line = _ANSI.sub("", raw.decode("utf-8", "replace")).rstrip("\n")
                line = line.lstrip("> ").rstrip()
                if not line:
                    continue
                self._tail.append(line)
                del self._tail[:-200]
                if self._log is not None:
                    self._log.write(line + "\n")
                    self._log.flush()
                if line.startswith(_READY) and self._ready is not None and not self._ready.done():
                    try:
                        self._ready.set_result(json.loads(line[len(_READY) :]))
                    except ValueError as exc:
                        self._ready.set_exception(EmbeddedServerError(f"bad READY line: {exc}"))
                else:
                    logger.debug("server: %s", line)
        finally:
            code = await proc.wait()
            if self._ready is not None and not self._ready.done():
                self._ready.set_exception(
                    EmbeddedServerError(
                        f"server exited with code {code} before it was ready; log tail:\n"
                        f"{self._tail_text()}"
                    )
                )

    async def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it after ``stop_timeout``; idempotent."""
        self._stopping = True
        proc = self._proc
        if self._child is not None:
            await self._child.stop()
            self._child = None
        if proc is not None:
            logger.info("embedded server (pid %s) stopped with code %s", proc.pid, proc.returncode)
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                async with asyncio.timeout(5):
                    await self._reader
            self._reader = None
        if self._log is not None:
            self._log.close()
            self._log = None
        self._proc = None

    async def wait_stopped(self) -> int:
        """Wait until the server process exits (by itself or by stop()); returns its exit code."""
        proc = self._proc
        if proc is None:
            return 0
        return await proc.wait()

    async def restart(self) -> None:
        """Stop and start again on the same world folder and ports."""
        await self.stop()
        await self.start()

    # the supervision (:meth:`supervise`, from :class:`Supervised`): after a death nobody
    # asked for, the same world folder and ports again (bodies then reconnect), 1 s doubling
    # up to 30 s while restarts fail; it returns when :meth:`stop` was called
    def _running(self) -> asyncio.subprocess.Process | None:
        return self._proc

    def _stop_asked(self) -> bool:
        return self._proc is None or self._stopping

    def _name(self) -> str:
        return "embedded server"

    async def _start_again(self) -> None:
        await self.restart()

    def _restarted(self, code: int) -> str:
        return f"the Minecraft server exited with {code} and was restarted"
