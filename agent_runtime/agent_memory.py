"""What an agent's modules share about its memory, typed, built by the runtime for each agent.

- :class:`PendingMemory` records wait in the agent's :data:`MemoryInbox` (bounded, the
  oldest dropped) until the memory module, which owns the stream, stores them; every
  module queues them (``modules.base.remember``) and only the memory module drains them.
- :class:`MemoryStore` is what the memory module keeps its stream in: Redis, the run's
  shared :class:`Encoder` and the state store's batched writer. Only a module that keeps
  the stream (``Module.keeps_memory``) is handed one.
"""

from __future__ import annotations

import collections
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from agent_runtime.state.store import Commands

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = [
    "INBOX_SIZE",
    "Encoder",
    "FloatArray",
    "MemoryInbox",
    "MemoryKindName",
    "MemoryStore",
    "PendingMemory",
    "Writer",
    "memory_inbox",
]

MemoryKindName = Literal["observation", "action", "conversation", "reflection", "plan", "seed"]
FloatArray = npt.NDArray[np.float32]
#: runs a caller's commands in the next shared transaction and returns their replies
Writer = Callable[[Commands], Awaitable[list[object]]]

INBOX_SIZE = 512


@dataclass(frozen=True)
class PendingMemory:
    text: str
    kind: MemoryKindName
    at: float
    importance: int | None = None
    evidence: tuple[int, ...] = ()
    counted: bool = True  # False: never adds to the reflection trigger (an own intention)


MemoryInbox = collections.deque[PendingMemory]


def memory_inbox() -> MemoryInbox:
    """A new agent's inbox: when the memory module is disabled or behind, the oldest records
    are dropped."""
    return collections.deque(maxlen=INBOX_SIZE)


@runtime_checkable
class Encoder(Protocol):
    """Turns texts into unit-norm float32 vectors of a fixed dimension."""

    @property
    def dim(self) -> int: ...

    @property
    def name(self) -> str:
        """Identifies the embedding space (stored vectors from another space are re-encoded)."""
        ...

    def encode(self, texts: Sequence[str]) -> FloatArray:
        """Return an array of shape ``(len(texts), dim)``, dtype float32."""
        ...


@dataclass(frozen=True)
class MemoryStore:
    """Where the memory module keeps the agent's stream."""

    redis: Redis
    encoder: Encoder
    writer: Writer
