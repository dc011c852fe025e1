"""In-process subscription registry and dispatch shared by every bus implementation."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from pydantic import BaseModel, ValidationError

from agent_runtime.bus.messages import decode
from agent_runtime.bus.topics import matches
from agent_runtime.interfaces import Bus, BusMessage, Subscription
from agent_runtime.queues import get_or_none, put_dropping_oldest

log = logging.getLogger(__name__)


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
    """Routes messages to matching subscriptions (exact topics via a dict): a model published
    in this process as it is, one from the wire once validated into its topic's model."""

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

    def _deliver(self, subs: list[QueueSubscription], topic: str, payload: BaseModel) -> None:
        msg = BusMessage(topic, payload)
        for sub in subs:
            sub.put(msg)
        self.delivered += len(subs)

    def dispatch(self, topic: str, payload: BaseModel) -> None:
        """Deliver a message published in this process: the model itself, no encoding."""
        self.received += 1
        subs = self._targets(topic)
        if subs:
            self._deliver(subs, topic, payload)

    def dispatch_raw(self, topic: str, raw: bytes | bytearray | str) -> None:
        """Validate a message from the wire into its topic's model and deliver it; one no
        local subscription wants is counted, not decoded; one that is not its topic's model
        (or on a topic with none) is dropped with a warning."""
        self.received += 1
        subs = self._targets(topic)
        if not subs:
            return
        try:
            payload = decode(topic, raw)
        except ValidationError as err:
            log.warning("dropping a message on %s that is not its model: %s", topic, err)
            return
        if payload is None:
            log.warning("dropping a message on %s: no message model for that topic", topic)
            return
        self._deliver(subs, topic, payload)
