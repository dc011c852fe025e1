"""Small helpers shared by the modules."""

from __future__ import annotations

from typing import TypeVar

from agent_runtime.agent_memory import MemoryKindName, PendingMemory
from agent_runtime.module_context import ModuleContext

__all__ = ["MemoryKindName", "PendingMemory", "appended", "remember", "short"]

T = TypeVar("T")


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
    ctx.memory.append(PendingMemory(text, kind, ctx.clock.now(), importance, evidence, counted))


def short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def appended(items: tuple[T, ...], item: T, limit: int) -> tuple[T, ...]:
    """``items`` with ``item`` added last, keeping only the newest ``limit``."""
    return (*items[-(limit - 1) :], item) if limit > 1 else (item,)
