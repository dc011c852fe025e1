"""An in-process bus with MQTT topic semantics, shipped for unit tests and ``services: none``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from agent_runtime.bus.local import LocalDispatch, encode


class InMemoryBus(LocalDispatch):
    """Publishing delivers synchronously to matching subscriptions (round-tripped through JSON)."""

    async def __aenter__(self) -> InMemoryBus:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def publish(self, topic: str, payload: Mapping[str, Any] | BaseModel) -> None:
        self.published += 1
        self.dispatch_raw(topic, encode(payload))
