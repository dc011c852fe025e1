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
import contextlib
import functools
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bots.transport import _bridge
from bots.transport._errors import BodyClosedError, BridgeCallError
from bots.transport._host import BODY_DIR, HostTransport

logger = logging.getLogger(__name__)

__all__ = ["JSPyBridgeTransport"]

_HOST_METHODS = (
    "spawnBot", "observe", "observeMany", "runSkill", "cancelSkill", "startViewer", "quitBot",
    "shutdown", "info",
)


class JSPyBridgeTransport(HostTransport):
    """Bodies in the JSPyBridge Node process (and its workers); see :class:`HostTransport`.

    Use as ``async with JSPyBridgeTransport(...) as t:`` then ``body = await t.connect(spec)``.
    Leaving the context quits every bot and, if no other transport uses it,
    terminates the Node process(es).
    """

    def _init_channel(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._handle: _bridge.BridgeHandle | None = None
        self._host: Any = None
        self._fns: dict[str, Any] = {}
        self._watch: asyncio.Task[None] | None = None

    # --- lifecycle ----------------------------------------------------------------

    async def __aenter__(self) -> JSPyBridgeTransport:
        self._loop = asyncio.get_running_loop()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jspybridge-call")
        try:
            async with asyncio.timeout(60):
                self._handle = await asyncio.to_thread(_bridge.acquire)
                await self._in_thread(self._setup_host, limit=30)
            self._open = True
            self._watch = asyncio.create_task(self._watch_bridge(), name="jspybridge.watch")
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

    async def _watch_bridge(self, every: float = 0.5) -> None:
        """Tell the bodies when the Node process dies under us (crash, OOM, kill)."""
        while True:  # polling a process: no event to wait on
            await asyncio.sleep(every)
            if self._handle is None or not _bridge.is_alive(self._handle):
                break
        if not self._closing:
            logger.error("the JSPyBridge Node process exited unexpectedly")
            for body in list(self._bodies.values()):
                body._push_event_fatal("the JSPyBridge Node process exited")

    async def _teardown(self) -> None:
        self._closing = True
        await self._stop_observations()
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        self._open = False
        for body in list(self._bodies.values()):
            body._mark_closed()
        alive = self._handle is not None and _bridge.is_alive(self._handle)
        if self._host is not None and alive:
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
        self._record(time.perf_counter() - t0)
        return result

    # --- events (bridge callback thread -> event loop) -----------------------------------

    def _on_batch(self, batch_json: str) -> None:
        """Called by JSPyBridge on its callback thread: hand over and return at once."""
        loop = self._loop
        if loop is None or self._closing:
            return
        with contextlib.suppress(RuntimeError):  # loop already closed
            loop.call_soon_threadsafe(self._dispatch, batch_json)

    @property
    def bridge_pid(self) -> int | None:
        return self._handle.pid if self._handle else None
