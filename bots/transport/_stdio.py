"""``StdioTransport``: the body host in a Node sidecar, JSON lines over stdin/stdout.

The second implementation behind the ``BotTransport`` seam (the first is
:class:`bots.transport.JSPyBridgeTransport`). Same host code (``bots/body/host.js``
via ``bots/body/sidecar.js``), same bodies, same options; one Node process per
transport instead of one per interpreter, asyncio end to end (no threads), and
many requests in flight at once. See ``bots/body/BENCH.md`` for numbers.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from typing import Any

from agent_runtime.services.process import ChildProcess
from agent_runtime.tasks import cancel_and_wait
from bots.node import node_env, node_executable, require_node_modules
from bots.transport._errors import BodyClosedError, BridgeCallError
from bots.transport._host import BODY_DIR, HostTransport

logger = logging.getLogger(__name__)

__all__ = ["StdioTransport"]

SIDECAR = BODY_DIR / "sidecar.js"
_LINE_LIMIT = 64 * 2**20  # one event batch is one line


class StdioTransport(HostTransport):
    """Bodies in a Node sidecar process speaking JSON lines; see :class:`HostTransport`."""

    def _init_channel(self) -> None:
        self._child: ChildProcess | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self.pid: int | None = None
        self._eof = False

    async def __aenter__(self) -> StdioTransport:
        require_node_modules()
        self._loop = asyncio.get_running_loop()
        # its own process group and a parent-death signal, as every child of the runtime
        self._child = ChildProcess(
            "body sidecar",
            [str(node_executable()), str(SIDECAR), json.dumps(self._host_opts)],
            env=node_env(),
            capture=True,
            pipe_stdin=True,
            quiet_stderr=True,
            limit=_LINE_LIMIT,
        )
        await self._child.start()
        self._proc = self._child.proc
        assert self._proc is not None
        self.pid = self._proc.pid
        ready: asyncio.Future[int] = self._loop.create_future()
        self._reader = asyncio.create_task(
            self._read(ready), name=f"bodies-sidecar[{self.pid}].reader"
        )
        try:
            async with asyncio.timeout(30):
                await ready
        except BaseException:
            await self._teardown()
            raise
        self._open = True
        logger.info("body sidecar started (pid %d)", self.pid)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._teardown()

    async def _read(self, ready: asyncio.Future[int]) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stdout = self._proc.stdout
        try:
            while line := await stdout.readline():
                try:
                    msg = json.loads(line)
                except ValueError:
                    logger.warning("sidecar wrote a non-JSON line: %.200r", line)
                    continue
                if "batch" in msg:
                    self._dispatch(msg["batch"])
                elif "id" in msg:
                    fut = self._pending.pop(msg["id"], None)
                    if fut is not None and not fut.done():
                        if msg.get("ok"):
                            fut.set_result(msg.get("value"))
                        else:
                            fut.set_exception(BridgeCallError(str(msg.get("error"))))
                elif msg.get("ready") and not ready.done():
                    ready.set_result(int(msg.get("pid", 0)))
        finally:
            self._eof = True
            if not ready.done():
                ready.set_exception(BridgeCallError("the body sidecar exited during start"))
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(BridgeCallError("the body sidecar exited"))
            self._pending.clear()
            if not self._closing:
                logger.error("body sidecar (pid %s) exited unexpectedly", self.pid)
                for body in list(self._bodies.values()):
                    body._push_event_fatal("the body sidecar exited")

    async def _call(self, method: str, *args: Any, limit: float | None = None) -> Any:
        proc = self._proc
        if (
            proc is None
            or proc.stdin is None
            or self._loop is None
            or proc.returncode is not None
            or self._eof
        ):
            raise BodyClosedError("transport is not open")
        seconds = self.call_timeout if limit is None else limit
        call_id = next(self._ids)
        fut: asyncio.Future[Any] = self._loop.create_future()
        self._pending[call_id] = fut
        t0 = time.perf_counter()
        self.calls += 1
        try:
            proc.stdin.write(
                json.dumps({"id": call_id, "method": method, "args": args}).encode() + b"\n"
            )
            async with asyncio.timeout(seconds):
                await proc.stdin.drain()
                result = await fut
        except TimeoutError as exc:
            self.failed_calls += 1
            raise BridgeCallError(f"sidecar call {method} timed out after {seconds:.0f} s") from exc
        except (ConnectionError, BrokenPipeError) as exc:
            self.failed_calls += 1
            raise BridgeCallError(f"sidecar call {method} failed: {exc}") from exc
        except BridgeCallError:
            self.failed_calls += 1
            raise
        finally:
            self._pending.pop(call_id, None)
        self._record(time.perf_counter() - t0)
        return result

    async def _teardown(self) -> None:
        self._closing = True
        await self._stop_observations()
        for body in list(self._bodies.values()):
            body._mark_closed()
        proc = self._proc
        if proc is not None and proc.returncode is None and self._open and not self._eof:
            try:
                await self._call("shutdown", limit=15)
            except (BridgeCallError, BodyClosedError) as exc:
                logger.warning("body sidecar shutdown failed: %r", exc)
        self._open = False
        if self._child is not None:
            # end of its input, then SIGTERM and SIGKILL to its whole group
            await self._child.stop(eof_grace=5)
            self._child = None
        if self._reader is not None:
            await cancel_and_wait(self._reader)
            self._reader = None
        self._bodies.clear()
