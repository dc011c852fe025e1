"""Small helpers shared by the modules."""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Literal, TypeVar

from agent_runtime.module_context import ModuleContext

MemoryKindName = Literal["observation", "action", "conversation", "reflection", "plan", "seed"]

INBOX_KEY = "memory_inbox"
INBOX_SIZE = 512

T = TypeVar("T")


@dataclass(frozen=True)
class PendingMemory:
    text: str
    kind: MemoryKindName
    at: float
    importance: int | None = None
    evidence: tuple[int, ...] = ()
    counted: bool = True  # False: never adds to the reflection trigger (an own intention)


def memory_inbox(ctx: ModuleContext) -> collections.deque[PendingMemory]:
    inbox = ctx.shared.get(INBOX_KEY)
    if inbox is None:
        inbox = ctx.shared[INBOX_KEY] = collections.deque(maxlen=INBOX_SIZE)
    assert isinstance(inbox, collections.deque)
    return inbox


def remember(
    ctx: ModuleContext,
    text: str,
    kind: MemoryKindName,
    *,
    importance: int | None = None,
    evidence: tuple[int, ...] = (),
    counted: bool = True,
) -> None:
    """Queue a memory record for the memory module (which owns the stream); never blocks.

    ``counted`` False: the record does not add to the reflection trigger (the agent's own
    intention, such as a decision; what it then perceives happen does).

    The queue is bounded: when the memory module is disabled or behind, the oldest
    pending items are dropped."""
    memory_inbox(ctx).append(
        PendingMemory(text, kind, ctx.clock.now(), importance, evidence, counted)
    )


def short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def appended(items: tuple[T, ...], item: T, limit: int) -> tuple[T, ...]:
    """``items`` with ``item`` added last, keeping only the newest ``limit``."""
    return (*items[-(limit - 1) :], item) if limit > 1 else (item,)
