"""An in-process bus with MQTT topic semantics, shipped for unit tests and ``services: none``."""

from __future__ import annotations

from pydantic import BaseModel

from agent_runtime.bus.local import LocalDispatch
from agent_runtime.bus.messages import check


class InMemoryBus(LocalDispatch):
    """Publishing delivers the model synchronously to matching subscriptions (no encoding)."""

    async def __aenter__(self) -> InMemoryBus:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def publish(self, topic: str, payload: BaseModel) -> None:
        check(topic, payload)
        self.published += 1
        self.dispatch(topic, payload)
