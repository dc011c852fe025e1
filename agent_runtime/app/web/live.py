"""Feeding a ``Scene`` from a running village, in the web process (never the agents' loop).

Three loops in one TaskGroup:

- ``mqtt``: subscribes to ``piano/{run}/#`` and hands every message to the scene
  (decisions, speech, heard chat, skills, goals, run progress) as it arrives;
- ``redis``: every ``poll_s`` seconds (longer for big villages) reads every agent's
  state hash in one pipeline (positions, inventory, plan, memories, sentiments, ...);
- ``events``: follows ``events.jsonl`` for the village's progress records (scheduling
  lag, LLM calls and tokens, coherence) and the world's places;
- ``world``: asks the embedded server's admin API once for its places, chests and layout
  (and keeps the map layer in the run folder, ``world_map.json``, for replays).

Every loop reconnects or retries with a capped backoff, so the page outlives a broker
or Redis restart; none of them writes anything.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiomqtt
import httpx
from pydantic import ValidationError
from redis.asyncio import Redis

from agent_runtime.app.web.scene import Scene
from agent_runtime.app.web.world_map import WORLD_FILE
from agent_runtime.bus import parse_mqtt_url, topics
from agent_runtime.bus.messages import Progress, View3dRequest, decode, encode
from agent_runtime.clock import wall_time
from agent_runtime.state import keys

log = logging.getLogger(__name__)

__all__ = ["LiveFeed"]

#: events.jsonl record types the live page takes from the file (the rest comes over MQTT)
FILE_TYPES = ('"type":"progress"', '"type":"world_started"', '"type":"run_st')


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _read_from(path: Path, offset: int) -> tuple[int, bytes]:
    """The file's size and what it holds past ``offset`` (nothing if it shrank)."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            if size <= offset:
                return size, b""
            f.seek(offset)
            return size, f.read(size - offset)
    except FileNotFoundError:
        return 0, b""


@dataclass(eq=False)
class LiveFeed:
    scene: Scene
    _: KW_ONLY
    run_id: str
    redis_url: str
    mqtt_url: str
    run_dir: Path | None = None
    admin_url: str | None = None
    poll_s: float = 1.0
    messages: int = field(default=0, init=False)
    polls: int = field(default=0, init=False)
    _client: aiomqtt.Client | None = field(default=None, init=False)
    _views: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict, init=False)

    async def run(self) -> None:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._mqtt(), name="web.mqtt")
            tg.create_task(self._redis(), name="web.redis")
            if self.run_dir is not None:
                tg.create_task(self._events(self.run_dir / "events.jsonl"), name="web.events")
            if self.admin_url:
                tg.create_task(self._world(self.admin_url), name="web.world")

    async def _mqtt(self) -> None:
        host, port = parse_mqtt_url(self.mqtt_url)
        backoff = 0.2
        while True:
            try:
                async with aiomqtt.Client(host, port, keepalive=30, timeout=10) as client:
                    await client.subscribe(topics.run_wildcard(self.run_id), qos=0)
                    self._client = client
                    backoff = 0.2
                    async for message in client.messages:
                        self._message(message.topic.value, message.payload)
            except aiomqtt.MqttError as err:
                log.info("web: MQTT connection lost (%s); retrying", err)
            finally:
                self._client = None
            await asyncio.sleep(backoff)
            backoff = min(5.0, backoff * 2)

    def _message(self, topic: str, payload: Any) -> None:
        """One message of the run, validated into its topic's model (anything else is dropped)."""
        if not isinstance(payload, bytes | bytearray | str):
            return
        try:
            message = decode(topic, payload)
        except ValidationError:
            return
        if message is None:
            return
        # a progress record without the figures its process does not have, as it was sent
        data = (
            message.figures() if isinstance(message, Progress) else message.model_dump(mode="json")
        )
        self.messages += 1
        waiting = self._views.get(topic)
        if waiting is not None and not waiting.done():
            waiting.set_result(data)
        self.scene.on_message(topic, data, wall_time())

    async def open_view(self, agent: str, wait_s: float = 25.0) -> dict[str, Any]:
        """Ask the process holding ``agent``'s body for a 3D view: ``{url}`` or ``{error}``."""
        if agent not in self.scene.agents:
            return {"error": f"no agent named {agent}"}
        client = self._client
        if client is None:
            return {"error": "not connected to the run's broker yet"}
        reply_topic = topics.view3d(self.run_id, agent)
        waiting = self._views.get(reply_topic)
        if waiting is None or waiting.done():
            waiting = asyncio.get_running_loop().create_future()
            self._views[reply_topic] = waiting
            ask = encode(View3dRequest())
            await client.publish(topics.view3d_request(self.run_id, agent), ask, qos=1)
        try:
            async with asyncio.timeout(wait_s):
                return dict(await asyncio.shield(waiting))
        except TimeoutError:
            return {"error": f"no answer from {agent}'s body within {wait_s:.0f} s"}
        finally:
            if waiting.done():
                self._views.pop(reply_topic, None)

    async def _redis(self) -> None:
        redis = Redis.from_url(self.redis_url, socket_timeout=10)
        try:
            while True:
                try:
                    await self._poll(redis)
                except (TimeoutError, OSError, ValueError) as err:
                    log.info("web: Redis poll failed (%s)", err)
                except Exception as err:  # redis.exceptions.* are not OSErrors
                    log.info("web: Redis poll failed (%s)", err)
                # a big village is polled less often: about 50 agents a second
                await asyncio.sleep(max(self.poll_s, len(self.scene.agents) / 50.0))
        finally:
            await redis.aclose()

    async def _poll(self, redis: Redis) -> None:
        names = sorted(
            n.decode() if isinstance(n, bytes) else str(n)
            for n in await redis.smembers(keys.agents(self.run_id))
        )
        if not names:
            return
        async with redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.hgetall(keys.state(self.run_id, name))
            rows = await pipe.execute()
        for name, row in zip(names, rows, strict=True):
            sections: dict[str, dict[str, Any]] = {}
            for k, v in (row or {}).items():
                try:
                    value = json.loads(v)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    sections[k.decode() if isinstance(k, bytes) else str(k)] = value
            self.scene.on_state(name, sections)
        self.polls += 1

    async def _events(self, path: Path) -> None:
        offset = 0
        rest = b""
        while True:
            size, chunk = await asyncio.to_thread(_read_from, path, offset)
            if size < offset:  # truncated: start again
                offset, rest = 0, b""
            elif chunk:
                offset += len(chunk)
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()
                for line in lines:
                    text = line.decode("utf-8", "replace")
                    if not any(m in text for m in FILE_TYPES):
                        continue
                    try:
                        record = json.loads(text)
                    except ValueError:
                        continue
                    if isinstance(record, dict):
                        self.scene.on_event(record)
            await asyncio.sleep(0.5)

    async def _world(self, admin_url: str) -> None:
        delay = 0.5
        url = urlsplit(admin_url)  # the token is the URL's password: send it as a bearer
        headers = {"Authorization": f"Bearer {url.password}"} if url.password else {}
        base = (
            f"{url.scheme}://{url.hostname}:{url.port}"
            if url.port
            else f"{url.scheme}://{url.hostname}"
        )
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=10.0) as client:
            while True:
                try:
                    answer = await client.get("/places")
                    answer.raise_for_status()
                    data = answer.json()
                    if isinstance(data, dict):
                        self.scene.set_world(data)
                        if self.run_dir is not None:  # for ``piano replay``
                            text = json.dumps(self.scene.world)
                            await asyncio.to_thread(_write, self.run_dir / WORLD_FILE, text)
                        return
                except (httpx.HTTPError, ValueError) as err:
                    log.info("web: admin API not answering yet (%s)", err)
                await asyncio.sleep(delay)
                delay = min(10.0, delay * 2)
