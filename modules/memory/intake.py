"""New memories checked and turned into records, before a stream stores them."""

from __future__ import annotations

from collections.abc import Container, Sequence

from modules.memory.columns import KIND_CODE
from modules.memory.importance import ImportanceRater
from modules.memory.records import MemoryRecord, NewMemory

__all__ = ["check_new", "new_records"]


def check_new(items: Sequence[NewMemory], known: Container[int], agent: str) -> None:
    """Raise ``ValueError`` for an empty text, an unknown kind, an importance outside 1..10
    or evidence that is not in the stream (``known``: its record ids)."""
    for item in items:
        if not item.text.strip():
            raise ValueError("memory text must not be empty")
        if item.kind not in KIND_CODE:
            raise ValueError(f"unknown memory kind {item.kind!r}")
        if item.importance is not None and not 1 <= item.importance <= 10:
            raise ValueError(f"importance must be 1..10, got {item.importance}")
        unknown = [e for e in item.evidence if e not in known]
        if unknown:
            raise ValueError(f"evidence ids {unknown} are not in {agent}'s stream")


def new_records(
    items: Sequence[NewMemory],
    *,
    first_id: int,
    agent: str,
    now: float,
    rater: ImportanceRater,
) -> list[MemoryRecord]:
    """The records of ``items``, ids from ``first_id``; created ``now`` unless given; an
    importance not given is rated by ``rater`` (source "heuristic", else "caller")."""
    records: list[MemoryRecord] = []
    for offset, item in enumerate(items):
        if item.importance is None:
            rated = max(1, min(10, int(rater(item.text, item.kind))))
            importance, source = rated, item.source or "heuristic"
        else:
            importance, source = item.importance, item.source or "caller"
        created = now if item.created is None else float(item.created)
        records.append(
            MemoryRecord(
                id=first_id + offset,
                agent=agent,
                text=item.text.strip(),
                kind=item.kind,
                created=created,
                last_accessed=created,
                importance=importance,
                evidence=item.evidence,
                source=source,
            )
        )
    return records
