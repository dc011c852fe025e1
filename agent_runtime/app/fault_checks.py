"""Whether a fault's data path came back, checked from outside the village's process.

Decisions made inside the village prove little: they go on with the broker dead (the bus
delivers locally and queues) and with Redis dead (the state is cached and written behind).
So each check looks at the data where it must arrive, with a client of its own:

- after Redis: a fresh client finds every state section and memory record it read before
  the kill, by content (``content_kept``), and state written since the restart
  (``writes_resumed``): :mod:`agent_runtime.app.fault_store`;
- after the broker: a fresh subscriber hears the village's broadcasts (``broadcast_heard``);
- after the Minecraft server: every body joined the world again (``bodies_rejoined``), the
  server holds each agent's inventory as it was before the kill (``inventories_kept``) and
  a world skill succeeded after it (``skill_succeeded``).

Each check returns True or False within its limit; ``piano faults`` reports them per fault
as ``data_path`` and counts a fault as recovered only when all of them hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import aiomqtt

from agent_runtime.bus import topics
from agent_runtime.bus.mqtt import parse_mqtt_url

__all__ = ["broadcast_heard", "world_skill_after"]

#: skills that need no world: their success says nothing of the body's way back
_NO_WORLD = frozenset({"chat", "whisper", "idle"})


async def broadcast_heard(url: str, run_id: str, limit: float) -> bool:
    """A fresh MQTT client subscribed to the run hears an agent's broadcast within ``limit``."""
    host, port = parse_mqtt_url(url)
    with contextlib.suppress(TimeoutError, aiomqtt.MqttError):
        async with asyncio.timeout(limit):
            async with aiomqtt.Client(host, port, identifier=f"fault-check-{run_id}") as client:
                await client.subscribe(topics.run_wildcard(run_id), qos=1)
                async for message in client.messages:
                    if "/agent/" in str(message.topic):
                        json.loads(bytes(message.payload))  # a whole message, not noise
                        return True
    return False


def world_skill_after(records: list[dict[str, Any]], since: float) -> bool:
    """Whether a skill that needs the world succeeded at or after ``since`` (event time)."""
    for r in records:
        if r.get("type") != "skill_outcome" or float(r.get("t", 0)) < since:
            continue
        skill = str((r.get("call") or {}).get("skill", ""))
        if r.get("success") and skill not in _NO_WORLD:
            return True
    return False
