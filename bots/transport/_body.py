"""``MineflayerBody``: the Python face of one JS body driven through a transport."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import AsyncIterator
from typing import Any, Protocol

from pydantic import ValidationError

from agent_runtime.clock import wall_time
from agent_runtime.interfaces import Body, BotSpec
from agent_runtime.queues import get_or_none, until_closed
from agent_runtime.world import (
    SKILL_TIMEOUTS,
    BodyEvent,
    Observation,
    SkillCall,
    SkillOutcome,
    validate_skill,
)
from bots.transport._errors import BodyClosedError, BodyError

logger = logging.getLogger(__name__)


class HostChannel(Protocol):
    """What a body asks of the host that runs it (``bots.transport._host.HostTransport``):
    named so the body does not import its host back."""

    call_timeout: float

    async def _call(self, method: str, *args: Any, limit: float | None = None) -> Any: ...
    async def _observe(self, name: str) -> dict[str, Any] | str: ...
    async def _disconnect(self, name: str) -> None: ...


__all__ = ["MineflayerBody"]

#: Extra seconds Python waits beyond the skill's own timeout (which JS enforces).
OUTCOME_GRACE_S = 5.0

_CONNECTED_KINDS = frozenset({"spawn", "respawn", "reconnected"})
_DISCONNECTED_KINDS = frozenset({"disconnected"})


class MineflayerBody(Body):
    """A mineflayer bot on the server. Created by a transport's ``connect``.

    Events arrive from the transport's dispatcher (on the event loop) into a
    bounded queue; when it is full the oldest event is dropped and counted in
    :attr:`dropped_events`.
    """

    def __init__(self, transport: HostChannel, spec: BotSpec, *, event_queue_size: int) -> None:
        self.name = spec.name
        self.spec = spec
        self._transport = transport
        self._events: asyncio.Queue[BodyEvent | None] = asyncio.Queue(maxsize=event_queue_size)
        self._pending: dict[str, asyncio.Future[SkillOutcome]] = {}
        self._call_ids = itertools.count(1)
        self._closed = False
        self.connected = False
        self.dropped_events = 0
        self.deaths: list[BodyEvent] = []
        self.kicks: list[BodyEvent] = []
        self.worker_pid: int | None = None

    # --- called by the transport's dispatcher (event loop thread) -----------------

    def _push_event(self, event: BodyEvent) -> None:
        if event.kind in _CONNECTED_KINDS:
            self.connected = True
        elif event.kind in _DISCONNECTED_KINDS:
            self.connected = False
            if event.data.get("fatal"):
                self._fail_pending("the body's worker process exited")
        if event.kind == "death":
            self.deaths.append(event)
        elif event.kind == "kicked":
            self.kicks.append(event)
        self._put(event)

    def _push_event_fatal(self, reason: str) -> None:
        """The process hosting this body is gone: report it and fail waiting skills."""
        self._push_event(
            BodyEvent(kind="disconnected", bot=self.name, data={"reason": reason, "fatal": True})
        )

    def _put(self, item: BodyEvent | None) -> None:
        while True:
            try:
                self._events.put_nowait(item)
                return
            except asyncio.QueueFull:
                with contextlib.suppress(asyncio.QueueEmpty):
                    self._events.get_nowait()
                    self.dropped_events += 1

    def _resolve_outcome(self, call_id: str, raw: dict[str, Any]) -> None:
        fut = self._pending.get(call_id)
        if fut is None or fut.done():
            logger.debug("%s: outcome for unknown or finished call %s", self.name, call_id)
            return
        try:
            fut.set_result(SkillOutcome.model_validate(raw))
        except ValidationError as exc:
            fut.set_exception(BodyError(f"malformed outcome from the body: {exc}"))

    def _fail_pending(self, reason: str) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_result(
                    SkillOutcome(
                        skill="?",
                        success=False,
                        reason=reason,
                        failure="disconnected",
                        ended_at=wall_time(),
                    )
                )

    # --- Body -------------------------------------------------------------------

    async def observe(self) -> Observation:
        """One snapshot (batched with other bodies' into one bridge call).

        Raises :class:`BodyError` if the body is unreachable.
        """
        self._check_open()
        data = await self._transport._observe(self.name)
        if isinstance(data, str):  # the snapshot's JSON text: validated in one pass
            return Observation.model_validate_json(data)
        if "error" in data:
            raise BodyError(f"{self.name}: observe failed: {data['error']}")
        return Observation.model_validate(data)

    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        """Validate (a call not already validated where it was made: a decision's or a line's
        call is passed as it is), start in JS, await the outcome event; never raises except on
        cancellation."""
        started = wall_time()
        try:
            call = validate_skill(call)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "args"
            return SkillOutcome(
                skill=call.skill,
                success=False,
                reason=f"bad arguments for {call.skill}: {where}: {first.get('msg', 'invalid')}",
                failure="bad_arguments",
                started_at=started,
                ended_at=wall_time(),
            )
        if self._closed:
            return SkillOutcome(
                skill=call.skill,
                success=False,
                reason="body is closed",
                failure="not_connected",
                started_at=started,
            )
        timeout = call.timeout if call.timeout is not None else SKILL_TIMEOUTS[call.skill]
        call_id = f"{self.name}-{next(self._call_ids)}"
        fut: asyncio.Future[SkillOutcome] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = fut
        try:
            reply = await self._transport._call(
                "runSkill",
                self.name,
                call_id,
                call.skill,
                json.dumps(call.args),
                int(timeout * 1000),
            )
            if reply != "started":
                return SkillOutcome(
                    skill=call.skill,
                    success=False,
                    reason=str(reply),
                    failure="not_connected",
                    started_at=started,
                    ended_at=wall_time(),
                )
            try:
                async with asyncio.timeout(timeout + OUTCOME_GRACE_S):
                    return await fut
            except TimeoutError:
                logger.warning("%s: no outcome for %s; cancelling it", self.name, call.describe())
                await self._cancel_quietly("timed out")
                return SkillOutcome(
                    skill=call.skill,
                    success=False,
                    timed_out=True,
                    reason="timed out (the body did not report an outcome)",
                    failure="timed_out",
                    started_at=started,
                    ended_at=wall_time(),
                )
        except asyncio.CancelledError:
            # The controller interrupted us: stop the skill in the world too.
            await self._cancel_quietly("interrupted by the controller")
            raise
        except BodyError as exc:
            # The bridge or the Node side failed: report it as an outcome, do not raise.
            return SkillOutcome(
                skill=call.skill,
                success=False,
                reason=f"body unavailable: {exc}"[:300],
                failure="disconnected",
                started_at=started,
                ended_at=wall_time(),
            )
        finally:
            self._pending.pop(call_id, None)

    async def _cancel_quietly(self, reason: str) -> None:
        try:
            async with asyncio.timeout(self._transport.call_timeout):
                await self._transport._call("cancelSkill", self.name, reason)
        except (BodyError, TimeoutError, asyncio.CancelledError) as exc:
            logger.debug("%s: cancel after interruption failed: %r", self.name, exc)

    async def cancel_skill(self) -> None:
        self._check_open()
        await self._transport._call("cancelSkill", self.name, "cancelled by the controller")

    async def open_viewer(self) -> int:
        """Serve a 3D view from this body's eyes (prismarine-viewer, in the body's own Node
        process, on 127.0.0.1); returns its port. Started once; later calls reuse it."""
        self._check_open()
        reply = json.loads(await self._transport._call("startViewer", self.name, "{}"))
        if not reply.get("ok"):
            raise BodyError(f"{self.name}: 3D view failed: {reply.get('error', 'unknown error')}")
        return int(reply["port"])

    def events(self) -> AsyncIterator[BodyEvent]:
        return until_closed(self._events)

    def next_event_nowait(self) -> BodyEvent | None:
        """The oldest queued event, or None when the queue is empty (for polling consumers)."""
        return get_or_none(self._events)

    # --- lifecycle ----------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise BodyClosedError(f"body {self.name} is closed")

    def _mark_closed(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.connected = False
        self._fail_pending("body closed")
        self._put(None)

    async def close(self) -> None:
        """Leave the server (no reconnect). Idempotent."""
        if self._closed:
            return
        self._mark_closed()
        try:
            await self._transport._disconnect(self.name)
        except BodyError as exc:
            logger.debug("%s: quit failed: %r", self.name, exc)

    @property
    def closed(self) -> bool:
        return self._closed

    def __repr__(self) -> str:
        return f"MineflayerBody({self.name!r}, connected={self.connected})"
