"""In-process subscription registry and dispatch shared by every bus implementation."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from agent_runtime.bus.topics import matches
from agent_runtime.interfaces import Bus, BusMessage, Subscription
from agent_runtime.queues import get_or_none, put_dropping_oldest

log = logging.getLogger(__name__)


def encode(payload: Mapping[str, Any] | BaseModel) -> bytes:
    if isinstance(payload, BaseModel):
        return payload.model_dump_json().encode()
    return json.dumps(payload, separators=(",", ":"), default=str).encode()


class QueueSubscription(Subscription):
    """A bounded queue; when full the oldest message is dropped and counted."""

    def __init__(self, owner: LocalDispatch, pattern: str, maxsize: int) -> None:
        self.pattern = pattern
        self.dropped = 0
        self._owner = owner
        self._queue: asyncio.Queue[BusMessage] = asyncio.Queue(maxsize=maxsize)
        self.closed = False
        self.on_put: Callable[[], None] | None = None

    def put(self, msg: BusMessage) -> None:
        if self.closed:
            return
        if put_dropping_oldest(self._queue, msg):
            self.dropped += 1
        if self.on_put is not None:
            self.on_put()

    async def get(self) -> BusMessage:
        return await self._queue.get()

    def get_nowait(self) -> BusMessage | None:
        return get_or_none(self._queue)

    def close(self) -> None:
        self.closed = True
        self._owner._remove(self)


class LocalDispatch(Bus):
    """Routes decoded messages to matching subscriptions (exact topics via a dict)."""

    def __init__(self) -> None:
        self._exact: dict[str, list[QueueSubscription]] = {}
        self._wild: list[QueueSubscription] = []
        self.delivered = 0
        self.published = 0
        self.received = 0

    def subscribe(self, pattern: str, maxsize: int = 256) -> Subscription:
        sub = QueueSubscription(self, pattern, maxsize)
        if "+" in pattern or "#" in pattern:
            self._wild.append(sub)
        else:
            self._exact.setdefault(pattern, []).append(sub)
        return sub

    def _remove(self, sub: QueueSubscription) -> None:
        if sub in self._wild:
            self._wild.remove(sub)
        subs = self._exact.get(sub.pattern)
        if subs and sub in subs:
            subs.remove(sub)
            if not subs:
                del self._exact[sub.pattern]

    def _targets(self, topic: str) -> list[QueueSubscription]:
        subs = list(self._exact.get(topic, ()))
        subs += [sub for sub in self._wild if matches(sub.pattern, topic)]
        return subs

    def _deliver(self, subs: list[QueueSubscription], topic: str, payload: dict[str, Any]) -> None:
        msg = BusMessage(topic, payload)
        for sub in subs:
            sub.put(msg)
        self.delivered += len(subs)

    def dispatch(self, topic: str, payload: dict[str, Any]) -> None:
        self.received += 1
        self._deliver(self._targets(topic), topic, payload)

    def dispatch_raw(self, topic: str, raw: bytes | bytearray | str) -> None:
        """Decode and deliver; a message no local subscription wants is counted, not decoded."""
        self.received += 1
        subs = self._targets(topic)
        if not subs:
            return
        try:
            payload = json.loads(raw)
        except ValueError:
            log.warning("dropping non-JSON message on %s", topic)
            return
        if not isinstance(payload, dict):
            payload = {"value": payload}
        self._deliver(subs, topic, payload)
