"""The body of one world-shard actor (wrapped by ``ray.remote`` in :mod:`.ray_launcher`).

The actor runs one embedded flying-squid server (:class:`bots.server_host.EmbeddedServer`)
in an event loop of its own, on a thread the actor owns for the server's whole life (the
server's parent-death signal follows that thread; the server also exits when the actor's
process is gone, ``parentPid``). While the actor lives, a server process that dies is
started again in place (``EmbeddedServer.supervise``, as on one machine); when the actor's
process or its node goes, Ray restarts the actor (``max_restarts``), on another node if need
be, and the new incarnation starts the server again on the same world folder, ports and
admin token (all given to the constructor), so the bodies reconnect to the same address.

A port that is still held by the previous incarnation's server (it exits within a second of
its parent) is tried again for :data:`START_LIMIT_S`; any other failure to start fails the
incarnation. This module does not import Ray (see :class:`.ray_actor.OwningActor`);
:class:`ServerSettings` is what the coordinator hands over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.app.launchers.ray_actor import OwningActor, renice
from bots.server_options import ServerOptions

__all__ = ["ServerActor", "ServerSettings"]

log = logging.getLogger(__name__)

#: how long a new incarnation keeps trying to start its server (the port may still be held)
START_LIMIT_S = 60.0
#: how long :meth:`ServerActor.stop` waits for the server's loop to end (the server's own
#: SIGTERM-to-SIGKILL is 10 s)
STOP_LIMIT_S = 15.0


@dataclass(frozen=True)
class ServerSettings:
    """One shard's server, the same for every incarnation of its actor."""

    shard: str
    world_dir: str
    host: str | None  # None: the address of the node the actor runs on (not options.host)
    options: ServerOptions  # its port and admin port fixed: every incarnation keeps them
    admin_token: str  # per run; secret (never logged)
    log_path: str
    nice: int | None = None  # the server's niceness (the coordinator's), not the actor's

    def __repr__(self) -> str:  # the token stays out of logs and Ray's error messages
        return f"ServerSettings(shard={self.shard!r}, port={self.options.port})"


class ServerActor(OwningActor):
    """Runs one shard's embedded server; ``wait_exit`` returns when it has stopped."""

    def __init__(self, settings: ServerSettings) -> None:
        super().__init__()
        self.settings = settings
        self.host = settings.host or self.placement.node_ip
        self.restarts = 0  # in place, while this incarnation lives
        self._info: dict[str, Any] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._start_owner(self._own_server, f"shard[{settings.shard}]")

    def _own_server(self) -> None:
        try:
            asyncio.run(_serve(self))
        except BaseException as err:  # reported by __init__ when it happens at the start
            if not self._started.is_set():
                self._error = err
            else:
                log.exception("shard %s: the server's loop failed", self.settings.shard)
        finally:
            self._started.set()
            self._exited.set()
        if self._error is None and not self._stopping():  # ended by itself: let Ray restart
            os._exit(1)

    def _stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def info(self) -> dict[str, Any]:
        """Where the server answers and who runs it (no token)."""
        return {
            "shard": self.settings.shard,
            "host": self.host,
            **self._info,
            **self._whereabouts(),
            "restarts_in_place": self.restarts,
        }

    def wait_exit(self) -> int | None:
        """Block until the server has stopped (asked to, or its loop failed)."""
        self._exited.wait()
        return 0

    def stop(self) -> int | None:
        """Stop the server (SIGTERM to its process group, SIGKILL after its timeout); if its
        loop has not ended after :data:`STOP_LIMIT_S`, say where it is and SIGKILL the group."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not self._exited.is_set():
            loop.call_soon_threadsafe(stop.set)
        if self._exited.wait(STOP_LIMIT_S):
            return 0
        frame = sys._current_frames().get(self._thread.ident or 0)
        where = "".join(traceback.format_stack(frame)[-6:]) if frame is not None else "?"
        log.warning("shard %s: the server's loop did not end; at:\n%s", self.settings.shard, where)
        pid = self._info.get("pid")
        if isinstance(pid, int):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        return None


async def _serve(self: ServerActor) -> None:
    """The server's life in the actor's own loop (a function, not a method: Ray makes an
    actor with any coroutine method an async actor, whose blocking methods would block it)."""
    from bots.server_host import EmbeddedServer, EmbeddedServerError

    s = self.settings
    self._loop = asyncio.get_running_loop()
    self._stop = asyncio.Event()
    options = s.options.model_copy(update={"host": self.host})
    server = EmbeddedServer(Path(s.world_dir), options, log_path=Path(s.log_path))
    server.admin_token = s.admin_token  # the same token for every incarnation
    deadline = time.monotonic() + START_LIMIT_S
    while True:
        try:
            await server.start()
            break
        except EmbeddedServerError as err:
            if "cannot listen" not in str(err) or time.monotonic() > deadline:
                raise
            log.warning("shard %s: server did not start (%s); again", s.shard, err)
            await asyncio.sleep(1.0)
    renice(server.pid, s.nice, f"shard {s.shard}'s server")
    try:
        self._info = {
            "port": server.port,
            "admin_port": server.info.get("adminPort"),
            "places": [p.model_dump() for p in server.places.values()],
            "pid": server.pid,
        }
        self._started.set()

        def restarted(message: str) -> None:
            self.restarts += 1
            self._info["pid"] = server.pid
            renice(server.pid, s.nice, f"shard {s.shard}'s server")
            log.warning("shard %s: %s", s.shard, message)

        supervisor = asyncio.create_task(server.supervise(restarted))
        await self._stop.wait()
        supervisor.cancel()
    finally:
        await server.stop()
