"""``JSPyBridgeTransport``: mineflayer bodies driven through JSPyBridge (PyPI ``javascript``).

Design (measured numbers in ``bots/body/README.md``):

* One JSPyBridge Node process per interpreter (:mod:`bots.transport._bridge`).
  It loads ``bots/body/host.js`` by absolute path (never by package name, which
  would make JSPyBridge run ``npm install``).
* The host keeps the bots in that process (``bots_per_process=0``) or forks
  worker processes holding up to ``bots_per_process`` bots each.
* Calls are coarse: one call per observation, one to start a skill. They run
  on a single dedicated thread (JSPyBridge's request ids are not thread-safe),
  each with a timeout on both sides of the bridge.
* Events and skill outcomes come back in batches through one Python callback,
  which JSPyBridge runs on its callback thread; the callback only hands the
  batch to the event loop with ``loop.call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_runtime.interfaces import BotSpec, BotTransport
from agent_runtime.world import BodyEvent
from bots.names import validate_minecraft_name
from bots.transport import _bridge
from bots.transport._body import MineflayerBody
from bots.transport._errors import BodyClosedError, BodyConnectError, BridgeCallError

logger = logging.getLogger(__name__)
node_logger = logging.getLogger("bots.body.node")

__all__ = ["BODY_DIR", "JSPyBridgeTransport"]

BODY_DIR = Path(__file__).resolve().parent.parent / "body"

_LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}

_HOST_METHODS = ("spawnBot", "observe", "runSkill", "cancelSkill", "quitBot", "shutdown", "info")


class JSPyBridgeTransport(BotTransport):
    """Creates :class:`MineflayerBody` objects; owns the host object in the bridge process.

    Use as ``async with JSPyBridgeTransport(...) as t:`` then ``body = await t.connect(spec)``.

    Options: ``bots_per_process`` (0 = bots in the bridge process, N = forked
    workers of up to N bots), ``call_timeout`` / ``spawn_timeout`` (seconds),
    ``event_queue_size`` (per body, drop-oldest), ``stuck_seconds`` (stuck
    detector), ``reconnect_base`` / ``reconnect_max`` (capped jittered backoff),
    ``view_distance`` (mineflayer), ``notable_radius`` (blocks scanned for the
    observation), ``path_tick_ms`` (A* time slice per tick and bot), ``seed``
    (per-body RNG, e.g. explore directions).
    Leaving the context quits every bot and, if no other transport uses it,
    terminates the Node process(es).
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
    ) -> None:
        if bots_per_process < 0:
            raise ValueError("bots_per_process must be >= 0 (0 = all bots in the bridge process)")
        if call_timeout <= 0 or spawn_timeout <= 0:
            raise ValueError("timeouts must be positive")
        if event_queue_size < 1:
            raise ValueError("event_queue_size must be >= 1")
        if not 0 < reconnect_base <= reconnect_max:
            raise ValueError("need 0 < reconnect_base <= reconnect_max")
        if not 1 <= notable_radius <= 64 or not 1 <= path_tick_ms <= 50:
            raise ValueError("need 1 <= notable_radius <= 64 and 1 <= path_tick_ms <= 50")
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
        }
        self._loop: asyncio.AbstractEventLoop | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._handle: _bridge.BridgeHandle | None = None
        self._host: Any = None
        self._fns: dict[str, Any] = {}
        self._bodies: dict[str, MineflayerBody] = {}
        self._closing = False
        #: Seconds per bridge call (most recent ``latency_samples``), for benchmarks.
        self.call_latencies: collections.deque[float] = collections.deque(maxlen=latency_samples)
        self.calls = 0
        self.failed_calls = 0
        self.batches = 0

    # --- lifecycle ----------------------------------------------------------------

    async def __aenter__(self) -> JSPyBridgeTransport:
        self._loop = asyncio.get_running_loop()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jspybridge-call")
        try:
            async with asyncio.timeout(60):
                self._handle = await asyncio.to_thread(_bridge.acquire)
                await self._in_thread(self._setup_host, limit=30)
        except BaseException:
            await self._teardown()
            raise
        return self

    def _setup_host(self) -> None:
        assert self._handle is not None
        module = self._handle.root._require(str(BODY_DIR / "host.js"), timeout=30)
        self._host = module.createHost(json.dumps(self._host_opts), self._on_batch, timeout=10)
        for name in _HOST_METHODS:
            self._fns[name] = getattr(self._host, name)

    async def __aexit__(self, *exc: object) -> None:
        await self._teardown()

    async def _teardown(self) -> None:
        self._closing = True
        for body in list(self._bodies.values()):
            body._mark_closed()
        if self._host is not None:
            try:
                await self._call("shutdown", limit=15)
            except (BridgeCallError, TimeoutError) as exc:
                logger.warning("body host shutdown failed: %r", exc)
            self._host = None
        self._fns.clear()
        if self._executor is not None:
            # A call stuck in the bridge must not block shutdown: do not wait for it.
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        if self._handle is not None:
            self._handle = None
            try:
                async with asyncio.timeout(15):
                    await asyncio.to_thread(_bridge.release)
            except TimeoutError:
                logger.error("terminating the JSPyBridge Node process timed out")
        self._bodies.clear()

    # --- bridge calls -----------------------------------------------------------------

    async def _in_thread(self, fn: Any, *args: Any, limit: float) -> Any:
        if self._executor is None or self._loop is None:
            raise BodyClosedError("transport is not open")
        fut = self._loop.run_in_executor(self._executor, functools.partial(fn, *args))
        async with asyncio.timeout(limit):
            return await fut

    async def _call(self, method: str, *args: Any, limit: float | None = None) -> Any:
        """One round trip to the host: ``host[method](*args)``, with a timeout."""
        fn = self._fns.get(method)
        if fn is None:
            raise BodyClosedError("transport is not open")
        seconds = self.call_timeout if limit is None else limit
        t0 = time.perf_counter()
        self.calls += 1
        try:
            # JSPyBridge's own timeout first; ours (slightly longer) as a backstop.
            result = await self._in_thread(
                functools.partial(fn, timeout=seconds), *args, limit=seconds + 2
            )
        except TimeoutError as exc:
            self.failed_calls += 1
            raise BridgeCallError(f"bridge call {method} timed out after {seconds:.0f} s") from exc
        except (BodyClosedError, asyncio.CancelledError):
            raise
        except Exception as exc:
            self.failed_calls += 1
            raise BridgeCallError(f"bridge call {method} failed: {exc}") from exc
        self.call_latencies.append(time.perf_counter() - t0)
        return result

    # --- events (bridge callback thread -> event loop) -----------------------------------

    def _on_batch(self, batch_json: str) -> None:
        """Called by JSPyBridge on its callback thread: hand over and return at once."""
        loop = self._loop
        if loop is None or self._closing:
            return
        with contextlib.suppress(RuntimeError):  # loop already closed
            loop.call_soon_threadsafe(self._dispatch, batch_json)

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
            body = self._bodies.get(item.get("bot", ""))
            if body is None:
                continue
            if kind == "outcome":
                body._resolve_outcome(str(item.get("call_id")), item.get("outcome") or {})
            elif kind == "event":
                try:
                    event = BodyEvent(
                        kind=item["kind"], bot=body.name, at=item.get("at", time.time()),
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
        if self._host is None or self._closing:
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
            }
        )
        try:
            raw = await self._call(
                "spawnBot", spec.name, spec_json, limit=self.spawn_timeout + 10
            )
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
        if self._host is not None:
            await self._call("quitBot", name, limit=15)

    # --- introspection ----------------------------------------------------------------

    @property
    def bodies(self) -> dict[str, MineflayerBody]:
        return dict(self._bodies)

    @property
    def bridge_pid(self) -> int | None:
        return self._handle.pid if self._handle else None

    async def info(self) -> dict[str, Any]:
        """Node-side facts: bridge pid, worker pids, bots, events dropped in JS."""
        info: dict[str, Any] = json.loads(await self._call("info"))
        return info
