"""The MQTT bus: one aiomqtt client per process, shared by all its agents.

On entry it connects (MQTT 5). Every pattern a local subscription asks for is subscribed
at the broker too (batched, with *no local*), and only those: the broker delivers the
messages of other processes (other workers, observers, the web view, experiments) that
some subscriber of this process wants, validated into its topic's model
(``agent_runtime.bus.messages``) and routed to local subscriptions; a
worker does not receive (and parse) every other worker's traffic. A subscription made
while the process runs is at the broker shortly after (``await subscriptions_ready()``
waits for it). This process's own publications are delivered to its local subscribers at
once, in process, as the model objects they are (the modules of one agent talk without a
broker or JSON round trip), and are also sent to the broker as JSON, so for everyone
outside the process a decision is still a broadcast on MQTT (an observer subscribes to
``piano/{run}/#``). Outgoing messages go through a bounded outbox (oldest dropped and
counted when full) drained by a sender task, so a slow broker never blocks an agent. The
sender takes everything queued at once (up to ``SEND_BATCH``) and hands it to the client
in one go, waiting only for the last message of the batch to be
written: one socket write-ready wake-up per batch instead of one per message (awaiting each
publication alone cost ~70 µs of CPU per message; see ``agent_runtime/app/BENCH.md``).
If the connection drops, both loops reconnect with capped, jittered backoff; local delivery
goes on meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import uuid
from urllib.parse import urlparse

import aiomqtt
import paho.mqtt.client as mqtt
from paho.mqtt.subscribeoptions import SubscribeOptions
from pydantic import BaseModel

from agent_runtime.bus.local import LocalDispatch, QueueSubscription
from agent_runtime.bus.messages import check, encode
from agent_runtime.bus.topics import matches, run_wildcard
from agent_runtime.interfaces import Subscription

log = logging.getLogger(__name__)

#: the most queued messages the sender hands to the client before waiting for the socket
SEND_BATCH = 256
#: the most topic filters in one SUBSCRIBE / UNSUBSCRIBE packet
SUBSCRIBE_BATCH = 500


def parse_mqtt_url(url: str) -> tuple[str, int]:
    u = urlparse(url)
    if u.scheme not in ("mqtt", "mqtts") or not u.hostname:
        raise ValueError(f"not an mqtt:// URL: {url!r}")
    return u.hostname, u.port or 1883


class MqttBus(LocalDispatch):
    def __init__(
        self,
        host: str,
        port: int,
        run_id: str,
        *,
        outbox_size: int = 10000,
        connect_timeout: float = 10.0,
        max_backoff: float = 5.0,
        rng: random.Random | None = None,
        username: str | None = None,
        password: str | None = None,
    ) -> None:
        super().__init__()
        if username is None and password is None:  # a worker's, handed over by environment
            from agent_runtime.services.credentials import MQTT_PASSWORD_ENV, MQTT_USER_ENV

            password = os.environ.get(MQTT_PASSWORD_ENV) or None
            username = (os.environ.get(MQTT_USER_ENV) or "piano") if password else None
        self._username = username
        self._password = password
        if outbox_size < 1:
            raise ValueError("outbox_size must be >= 1")
        self.host = host
        self.port = port
        self.run_id = run_id
        self.connect_timeout = connect_timeout
        self.max_backoff = max_backoff
        self._rng = rng or random.Random()
        self._wildcard = run_wildcard(run_id)
        # patterns local subscriptions want (-> how many), and what the broker has yet to hear
        self._wanted: dict[str, int] = {}
        self._to_subscribe: set[str] = set()
        self._to_unsubscribe: set[str] = set()
        self._subs_changed = asyncio.Event()
        self._subs_ready = asyncio.Event()
        self._closing = False
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(maxsize=outbox_size)
        self._client: aiomqtt.Client | None = None
        self._connected = asyncio.Event()
        self._ever_connected = False
        self._tasks: asyncio.TaskGroup | None = None
        self._conn_task: asyncio.Task[None] | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self.dropped_outgoing = 0
        self.reconnects = 0
        self.sent = 0

    async def __aenter__(self) -> MqttBus:
        self._stack = contextlib.AsyncExitStack()
        self._tasks = await self._stack.enter_async_context(asyncio.TaskGroup())
        self._conn_task = self._tasks.create_task(
            self._connection_loop(), name=f"mqtt[{self.run_id}].connection"
        )
        try:
            async with asyncio.timeout(self.connect_timeout):
                await self._connected.wait()
        except TimeoutError:
            await self.__aexit__(None, None, None)
            raise ConnectionError(
                f"MQTT broker at {self.host}:{self.port} did not accept a connection "
                f"within {self.connect_timeout:.0f}s"
            ) from None
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closing = True
        # give queued publications a moment to leave before closing
        if self._connected.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await self._outbox.join()
        if self._conn_task is not None:
            self._conn_task.cancel()
        if self._stack is not None:
            stack, self._stack = self._stack, None
            with contextlib.suppress(asyncio.CancelledError):
                await stack.aclose()

    def subscribe(self, pattern: str, maxsize: int = 256) -> Subscription:
        sub = super().subscribe(pattern, maxsize)
        n = self._wanted.get(pattern, 0)
        self._wanted[pattern] = n + 1
        if n == 0:
            self._to_unsubscribe.discard(pattern)
            self._to_subscribe.add(pattern)
            self._subs_ready.clear()
            self._subs_changed.set()
        return sub

    def _remove(self, sub: QueueSubscription) -> None:
        registered = sub in self._wild or sub in self._exact.get(sub.pattern, ())
        super()._remove(sub)
        if not registered:
            return
        n = self._wanted.get(sub.pattern, 0) - 1
        if n > 0:
            self._wanted[sub.pattern] = n
            return
        self._wanted.pop(sub.pattern, None)
        self._to_subscribe.discard(sub.pattern)
        if self._closing:  # the session ends anyway: no unsubscribing on the way out
            return
        self._to_unsubscribe.add(sub.pattern)
        self._subs_ready.clear()
        self._subs_changed.set()

    async def subscriptions_ready(self) -> None:
        """Return once the broker has acknowledged every (un)subscription made so far."""
        await self._subs_ready.wait()

    async def publish(self, topic: str, payload: BaseModel) -> None:
        check(topic, payload)
        self.published += 1
        if matches(self._wildcard, topic):  # what the broker would have sent back to us
            self.dispatch(topic, payload)  # the model itself: no JSON round trip in process
        data = encode(payload)
        if self._outbox.full():
            self._outbox.get_nowait()
            self._outbox.task_done()
            self.dropped_outgoing += 1
        self._outbox.put_nowait((topic, data))

    async def _connection_loop(self) -> None:
        backoff = 0.2
        while True:
            client = aiomqtt.Client(
                self.host,
                self.port,
                identifier=f"piano-{self.run_id}-{uuid.uuid4().hex[:8]}",
                keepalive=30,
                timeout=self.connect_timeout,
                protocol=aiomqtt.ProtocolVersion.V5,
                username=self._username,
                password=self._password,
            )
            try:
                async with client:
                    # a new session: the broker knows none of our patterns yet
                    self._to_subscribe = set(self._wanted)
                    self._to_unsubscribe.clear()
                    await self._sync_subscriptions(client)
                    self._client = client
                    self._connected.set()
                    self._ever_connected = True
                    backoff = 0.2
                    async with asyncio.TaskGroup() as tg:
                        tg.create_task(self._reader(client), name=f"mqtt[{self.run_id}].reader")
                        tg.create_task(self._sender(client), name=f"mqtt[{self.run_id}].sender")
                        tg.create_task(
                            self._subscriber(client), name=f"mqtt[{self.run_id}].subscriber"
                        )
            except* aiomqtt.MqttError as group:
                # before the first connection the caller reports the failure itself
                report = log.warning if self._ever_connected else log.debug
                report("MQTT connection lost: %s", group.exceptions[0])
            _drop_stray_cancel(self._closing)
            self._connected.clear()
            self._subs_ready.clear()  # a new broker session must hear our patterns again
            self._client = None
            self.reconnects += 1
            delay = min(self.max_backoff, backoff) * (0.5 + self._rng.random())
            backoff = min(self.max_backoff, backoff * 2)
            await asyncio.sleep(delay)

    async def _sync_subscriptions(self, client: aiomqtt.Client) -> None:
        """Tell the broker what changed, in batches; ready once nothing is left."""
        task = asyncio.current_task()
        self._subs_changed.clear()
        while self._to_subscribe or self._to_unsubscribe:
            if task is not None and task.cancelling():
                # a cancel can be swallowed inside aiomqtt's (un)subscribe (asyncio.wait_for
                # in Python 3.11, as in the sender): honour it, or stopping the bus hangs
                raise asyncio.CancelledError
            if self._to_subscribe:
                batch = sorted(self._to_subscribe)[:SUBSCRIBE_BATCH]
                self._to_subscribe.difference_update(batch)
                options = SubscribeOptions(qos=0, noLocal=True)
                await client.subscribe([(p, options) for p in batch])
            else:
                batch = sorted(self._to_unsubscribe)[:SUBSCRIBE_BATCH]
                self._to_unsubscribe.difference_update(batch)
                await client.unsubscribe(batch)
        self._subs_ready.set()

    async def _subscriber(self, client: aiomqtt.Client) -> None:
        task = asyncio.current_task()
        while True:
            await self._subs_changed.wait()
            await self._sync_subscriptions(client)
            if task is not None and task.cancelling():  # (see _sync_subscriptions)
                raise asyncio.CancelledError

    async def _reader(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            payload = message.payload
            if isinstance(payload, bytes | bytearray | str):
                self.dispatch_raw(message.topic.value, payload)

    async def _sender(self, client: aiomqtt.Client) -> None:
        task = asyncio.current_task()
        outbox = self._outbox
        while True:
            batch = [await outbox.get()]
            while len(batch) < SEND_BATCH and not outbox.empty():
                batch.append(outbox.get_nowait())
            try:
                await _publish_batch(client, batch)
                self.sent += len(batch)
            finally:
                for _ in batch:
                    outbox.task_done()
            if task is not None and task.cancelling():
                # a cancel that arrived while publish finished can be swallowed inside it
                # (asyncio.wait_for in Python 3.11): honour it, or stopping the bus hangs
                raise asyncio.CancelledError


def _drop_stray_cancel(closing: bool) -> None:
    """Forget a cancel request that the connection's task group left on this task.

    When a reader or sender fails, the inner TaskGroup cancels this (its parent) task; on
    Python 3.11 that request can outlive the group (the connection loop caught the
    group's MqttError with ``cancelling() == 1``, measured after a broker SIGKILL). Left
    there, the next ``asyncio.timeout`` inside aiomqtt's connect turned into a
    CancelledError, the loop ended and the bus never reconnected: every later publication
    sat in the outbox while the village went on deciding locally. The only cancel meant
    for this task comes from ``__aexit__``, which sets ``closing`` first.
    """
    task = asyncio.current_task()
    if closing or task is None:
        return
    while task.cancelling():
        task.uncancel()


async def _publish_batch(client: aiomqtt.Client, batch: list[tuple[str, bytes]]) -> None:
    """Queue every message of ``batch`` on the client's socket and wait for the last one.

    All but the last go straight to paho's ``publish`` (aiomqtt's ``_client``: paho queues
    the packet and asks the event loop for one write-ready callback); the last goes through
    aiomqtt's ``publish``, which returns once that packet, and so every packet queued before
    it, is written. A message paho refuses (not connected) raises as aiomqtt's own would.
    """
    paho = client._client
    for topic, data in batch[:-1]:
        info = paho.publish(topic, data, 0)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            raise aiomqtt.MqttCodeError(info.rc, "Could not publish message")
    topic, data = batch[-1]
    await client.publish(topic, data, qos=0)
