"""``HostTransport``: what every transport to ``bots/body/host.js`` shares.

A subclass opens a channel to a Node process running the body host and
implements :meth:`_call` (one request, one reply, with a timeout); it feeds the
host's event batches (JSON arrays of events, skill outcomes and log lines) to
:meth:`_dispatch` on the event loop. Options, routing of events to bodies,
``connect`` and introspection live here.
"""

from __future__ import annotations

import abc
import asyncio
import collections
import itertools
import json
import logging
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_runtime.checks import require_positive
from agent_runtime.clock import wall_time
from agent_runtime.interfaces import BotSpec, BotTransport
from agent_runtime.tasks import cancel_and_wait
from agent_runtime.world import BodyEvent
from bots.names import validate_minecraft_name
from bots.transport._body import MineflayerBody
from bots.transport._errors import BodyClosedError, BodyConnectError, BridgeCallError

logger = logging.getLogger(__name__)
node_logger = logging.getLogger("bots.body.node")

__all__ = ["BODY_DIR", "HostTransport"]


#: One body's snapshot as the host sends it: its JSON text (validated from the text by the
#: body, in one pass), or an object (``{"error": ...}``).
Snapshot = dict[str, Any] | str


def _settle(
    waiters: dict[str, list[asyncio.Future[Snapshot]]],
    result: Snapshot | None = None,
    *,
    error: BaseException | None = None,
) -> None:
    for futs in waiters.values():
        for fut in futs:
            if fut.done():
                continue
            if error is not None:
                fut.set_exception(error)
            else:
                fut.set_result({} if result is None else result)


BODY_DIR = Path(__file__).resolve().parent.parent / "body"

_LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class HostTransport(BotTransport):
    """Base of the transports that drive ``bots/body/host.js``.

    Options: ``bots_per_process`` (0 = bots in the host process, N = forked
    workers of up to N bots), ``call_timeout`` / ``spawn_timeout`` (seconds),
    ``event_queue_size`` (per body, drop-oldest), ``stuck_seconds`` (stuck
    detector), ``reconnect_base`` / ``reconnect_max`` (capped jittered backoff),
    ``view_distance`` (mineflayer), ``notable_radius`` (blocks scanned for the
    observation), ``path_tick_ms`` (A* time slice per tick and bot), ``seed``
    (per-body RNG, e.g. explore directions), ``hearing_radius`` (blocks around the
    speaker within which a body hears public chat, from the speaker's position as its
    client sees it; whispers are heard anywhere; None = all chat the server delivers).
    """

    def __init__(
        self,
        *,
        bots_per_process: int = 0,
        call_timeout: float = 10.0,
        spawn_timeout: float = 30.0,
        event_queue_size: int = 1024,
        stuck_seconds: float = 20.0,
        reconnect_base: float = 0.5,
        reconnect_max: float = 10.0,
        view_distance: str = "short",
        notable_radius: float = 16.0,
        path_tick_ms: int = 10,
        seed: int = 0,
        latency_samples: int = 100_000,
        hearing_radius: float | None = None,
    ) -> None:
        if bots_per_process < 0:
            raise ValueError("bots_per_process must be >= 0 (0 = all bots in the host process)")
        require_positive(call_timeout=call_timeout, spawn_timeout=spawn_timeout)
        if event_queue_size < 1:
            raise ValueError("event_queue_size must be >= 1")
        if not 0 < reconnect_base <= reconnect_max:
            raise ValueError("need 0 < reconnect_base <= reconnect_max")
        if not 1 <= notable_radius <= 64 or not 1 <= path_tick_ms <= 50:
            raise ValueError("need 1 <= notable_radius <= 64 and 1 <= path_tick_ms <= 50")
        if hearing_radius is not None and not hearing_radius > 0:
            raise ValueError("hearing_radius must be positive (None = hear all chat)")
        self.bots_per_process = bots_per_process
        self.call_timeout = call_timeout
        self.spawn_timeout = spawn_timeout
        self.event_queue_size = event_queue_size
        self._host_opts = {
            "bots_per_process": bots_per_process,
            "stuck_ms": int(stuck_seconds * 1000),
            "reconnect_base_ms": int(reconnect_base * 1000),
            "reconnect_max_ms": int(reconnect_max * 1000),
            "view_distance": view_distance,
            "seed": seed,
            "spawn_timeout_ms": int(spawn_timeout * 1000),
            "notable_radius": notable_radius,
            "path_tick_ms": path_tick_ms,
            "hearing_radius": hearing_radius,
        }
        self._loop: asyncio.AbstractEventLoop | None = None
        self._open = False
        self._bodies: dict[str, MineflayerBody] = {}
        self._closing = False
        #: Seconds per bridge call (most recent ``latency_samples``), for benchmarks.
        self.call_latencies: collections.deque[float] = collections.deque(maxlen=latency_samples)
        self.calls = 0
        self.failed_calls = 0
        self.batches = 0
        #: Observations asked for and not yet fetched: body name -> its waiters.
        self._obs_wanted: dict[str, list[asyncio.Future[Snapshot]]] = {}
        self._obs_task: asyncio.Task[None] | None = None
        self._obs_tickets = itertools.count(1)
        self._obs_replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        #: ``observeMany`` calls made and the snapshots they carried (for benchmarks).
        self.observe_batches = 0
        self.observe_snapshots = 0
        self._init_channel()

    def _init_channel(self) -> None:
        """Set up the subclass's channel attributes (no I/O)."""

    @abc.abstractmethod
    async def _call(self, method: str, *args: Any, limit: float | None = None) -> Any:
        """One round trip to the host: ``host[method](*args)``; raises BridgeCallError."""

    def _record(self, seconds: float) -> None:
        self.call_latencies.append(seconds)

    # --- observations, batched ------------------------------------------------------

    async def _observe(self, name: str) -> Snapshot:
        """``name``'s snapshot (its JSON text; ``{"error": ...}`` when the body failed).

        Every snapshot asked for while a batch is out goes into the next one: one short
        call (``observeMany``, answered at once) and one message per body worker for all
        the bodies that want one; the snapshots come back through the event batches.
        Under load the batches grow instead of a queue of calls, and the call channel
        stays free for skills: a busy body worker slows observations down but cannot make
        every call wait out its timeout behind the others.
        """
        if not self._open or self._closing or self._loop is None:
            raise BodyClosedError("transport is not open")
        fut: asyncio.Future[Snapshot] = self._loop.create_future()
        self._obs_wanted.setdefault(name, []).append(fut)
        if self._obs_task is None or self._obs_task.done():
            self._obs_task = self._loop.create_task(
                self._fetch_observations(), name="bodies.observe-batches"
            )
        return await fut

    async def _fetch_observations(self) -> None:
        assert self._loop is not None
        while self._obs_wanted:
            wanted, self._obs_wanted = self._obs_wanted, {}
            live = {n: fs for n, fs in wanted.items() if any(not f.done() for f in fs)}
            if not live:
                continue
            self.observe_batches += 1
            self.observe_snapshots += len(live)
            ticket = next(self._obs_tickets)
            reply: asyncio.Future[dict[str, Any]] = self._loop.create_future()
            self._obs_replies[ticket] = reply
            try:
                await self._call("observeMany", ticket, json.dumps(list(live)))
                try:
                    async with asyncio.timeout(self.call_timeout):
                        replies = await reply
                except TimeoutError:
                    self.failed_calls += 1
                    raise BridgeCallError(
                        f"observations timed out after {self.call_timeout:.0f} s"
                    ) from None
            except Exception as exc:  # every waiter of this batch gets the failure
                _settle(live, error=exc)
                continue
            except asyncio.CancelledError:
                _settle(live, error=BodyClosedError("transport closed"))
                raise
            finally:
                self._obs_replies.pop(ticket, None)
            for name, futs in live.items():
                one = replies.get(name)
                ok = isinstance(one, (str, dict))
                _settle({name: futs}, one if ok else {"error": "no reply"})

    def _observations_arrived(self, item: dict[str, Any]) -> None:
        fut = self._obs_replies.get(item.get("ticket", -1))
        if fut is None or fut.done():
            return
        data = item.get("data")
        if isinstance(data, dict):
            fut.set_result(data)
        else:
            fut.set_exception(BridgeCallError(f"observations failed: {item.get('error')}"))

    async def _stop_observations(self) -> None:
        """Teardown: stop fetching and fail every waiter (no task left behind)."""
        task, self._obs_task = self._obs_task, None
        if task is not None:
            await cancel_and_wait(task)
        wanted, self._obs_wanted = self._obs_wanted, {}
        _settle(wanted, error=BodyClosedError("transport closed"))

    def _dispatch(self, batch_json: str) -> None:
        self.batches += 1
        try:
            batch = json.loads(batch_json)
        except (TypeError, ValueError):
            logger.error("malformed event batch from the body host: %.200r", batch_json)
            return
        for item in batch:
            kind = item.get("type")
            if kind == "log":
                level = _LOG_LEVELS.get(item.get("level", "info"), logging.INFO)
                node_logger.log(level, "%s", item.get("msg", ""))
                continue
            if kind == "observations":
                self._observations_arrived(item)
                continue
            body = self._bodies.get(item.get("bot", ""))
            if body is None:
                continue
            if kind == "outcome":
                body._resolve_outcome(str(item.get("call_id")), item.get("outcome") or {})
            elif kind == "event":
                try:
                    event = BodyEvent(
                        kind=item["kind"],
                        bot=body.name,
                        at=item.get("at", wall_time()),
                        data=item.get("data") or {},
                    )
                except (KeyError, ValidationError) as exc:
                    logger.error("malformed body event %.200r: %s", item, exc)
                    continue
                body._push_event(event)

    # --- BotTransport ---------------------------------------------------------------

    async def connect(self, spec: BotSpec) -> MineflayerBody:
        """Log a bot in (offline mode, ``spec.name``) and wait for its first spawn."""
        validate_minecraft_name(spec.name)
        if not self._open or self._closing:
            raise BodyClosedError("transport is not open")
        if spec.name in self._bodies:
            raise BodyConnectError(f"a body named {spec.name} is already connected")
        body = MineflayerBody(self, spec, event_queue_size=self.event_queue_size)
        self._bodies[spec.name] = body
        spec_json = json.dumps(
            {
                "name": spec.name,
                "host": spec.host,
                "port": spec.port,
                "version": spec.version,
                "spawn": list(spec.spawn) if spec.spawn else None,
                "keyFile": spec.login_key_file,  # its path: the body reads the key itself
            }
        )
        try:
            raw = await self._call("spawnBot", spec.name, spec_json, limit=self.spawn_timeout + 10)
            reply = json.loads(raw)
        except BaseException:
            self._bodies.pop(spec.name, None)
            raise
        if not reply.get("ok"):
            self._bodies.pop(spec.name, None)
            raise BodyConnectError(f"{spec.name}: {reply.get('error', 'unknown error')}")
        body.worker_pid = reply.get("pid")
        body.connected = True
        return body

    async def _disconnect(self, name: str) -> None:
        self._bodies.pop(name, None)
        if self._open:
            await self._call("quitBot", name, limit=15)

    # --- introspection ----------------------------------------------------------------

    @property
    def bodies(self) -> dict[str, MineflayerBody]:
        return dict(self._bodies)

    async def info(self) -> dict[str, Any]:
        """Node-side facts: bridge pid, worker pids, bots, events dropped in JS."""
        info: dict[str, Any] = json.loads(await self._call("info"))
        return info
