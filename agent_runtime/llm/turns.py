"""Turns at an endpoint for the calls an agent waits on: whether a high-priority call would be
served next, shared by the controllers of one process (one per limiter)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from agent_runtime.llm.limits import Limiter
from agent_runtime.llm.priority import Priority

__all__ = ["EndpointTurns"]


class EndpointTurns:
    """Whether a controller call would be served next, shared by the controllers of one
    process (one per limiter): ``asking`` counts their calls in flight from the moment they
    are made, before the limiter has seen them. Controllers take turns instead of queueing
    behind each other until the backlog sheds them."""

    _gates: ClassVar[dict[int, EndpointTurns]] = {}

    def __init__(self, limiter: Limiter) -> None:
        self.limiter = limiter
        self.asking = 0

    @classmethod
    def of(cls, limiter: Limiter | None) -> EndpointTurns | None:
        """The turns of ``limiter`` (an LLM service's limiter); None without one."""
        if limiter is None:
            return None
        gate = cls._gates.get(id(limiter))
        if gate is None or gate.limiter is not limiter:
            gate = cls._gates[id(limiter)] = cls(limiter)
        return gate

    def free(self) -> bool:
        """No other controller call is waiting for a slot: a new one is served next (after
        at most the call being served), ahead of every lower-priority request."""
        lim = self.limiter
        return bool(self.asking < lim.limit and lim.queued_ahead(Priority.HIGH) == 0)

    async def wait_free(self, within: float) -> bool:
        """True as soon as a call would be served at once; False after ``within`` seconds."""
        if self.free():
            return True
        try:
            async with asyncio.timeout(within):
                await self.limiter.wait_for(lambda _: self.free())
        except TimeoutError:
            return False
        return self.free()
