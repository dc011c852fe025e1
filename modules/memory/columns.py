"""The in-process cache of one memory stream: records by id plus numpy columns.

Retrieval scores every candidate at once, so the fields it needs (embedding, norms, times,
importance, tokens, kind) are kept as growable numpy columns in insertion order; the
records themselves stay in a dict by id. :class:`~modules.memory.store.MemoryStream` owns
one of these and writes every change through to Redis itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from modules.memory.encoder import FloatArray
from modules.memory.records import MEMORY_KINDS, MemoryKind, MemoryRecord
from modules.memory.retrieval import Candidates

__all__ = ["KIND_CODE", "Columns"]

KIND_CODE: dict[MemoryKind, int] = {k: i for i, k in enumerate(MEMORY_KINDS)}
_NAMES = ("_ids", "_emb", "_norms", "_created", "_accessed", "_importance", "_tokens", "_kind")


class Columns:
    def __init__(self, dim: int, capacity: int = 64) -> None:
        self.dim = dim
        self.records: dict[int, MemoryRecord] = {}
        self._row: dict[int, int] = {}
        self.n = 0
        self._alloc(max(1, capacity))

    def _alloc(self, cap: int) -> None:
        self._ids = np.zeros(cap, dtype=np.int64)
        self._emb = np.zeros((cap, self.dim), dtype=np.float32)
        self._norms = np.zeros(cap, dtype=np.float32)
        self._created = np.zeros(cap, dtype=np.float64)
        self._accessed = np.zeros(cap, dtype=np.float64)
        self._importance = np.zeros(cap, dtype=np.float64)
        self._tokens = np.zeros(cap, dtype=np.int64)
        self._kind = np.zeros(cap, dtype=np.int8)

    def _grow(self, need: int) -> None:
        cap = self._ids.shape[0]
        if need <= cap:
            return
        old: dict[str, npt.NDArray[Any]] = {name: getattr(self, name) for name in _NAMES}
        self._alloc(max(need, cap * 2))
        for name in _NAMES:
            getattr(self, name)[: self.n] = old[name][: self.n]

    @property
    def embeddings(self) -> FloatArray:
        return self._emb[: self.n]

    def append(self, record: MemoryRecord, vec: FloatArray) -> None:
        self._grow(self.n + 1)
        i = self.n
        self._ids[i] = record.id
        self._emb[i] = vec
        self._norms[i] = np.linalg.norm(vec)
        self._created[i] = record.created
        self._accessed[i] = record.last_accessed
        self._importance[i] = record.importance
        self._tokens[i] = record.tokens
        self._kind[i] = KIND_CODE[record.kind]
        self._row[record.id] = i
        self.records[record.id] = record
        self.n += 1

    def has_kind(self, kind: MemoryKind) -> bool:
        return bool(np.any(self._kind[: self.n] == KIND_CODE[kind]))

    def _kind_mask(self, kinds: Iterable[MemoryKind] | None) -> npt.NDArray[np.bool_] | None:
        if kinds is None:
            return None
        return np.isin(self._kind[: self.n], [KIND_CODE[k] for k in kinds])

    def recent(self, n: int, kinds: Iterable[MemoryKind] | None = None) -> list[MemoryRecord]:
        """The ``n`` most recently created records (ties: higher id), oldest first."""
        if n <= 0 or self.n == 0:
            return []
        rows = np.arange(self.n)
        mask = self._kind_mask(kinds)
        if mask is not None:
            rows = rows[mask]
        order = np.lexsort((self._ids[rows], self._created[rows]))
        return [self.records[int(self._ids[r])] for r in rows[order][-n:]]

    def candidates(self, kinds: Iterable[MemoryKind] | None = None) -> Candidates | None:
        """The retrieval columns of every record (of ``kinds``), or None when there are none."""
        n = self.n
        mask = self._kind_mask(kinds)
        rows: slice | npt.NDArray[np.intp] = slice(0, n) if mask is None else np.flatnonzero(mask)
        if n == 0 or (not isinstance(rows, slice) and rows.size == 0):
            return None
        return Candidates(
            ids=self._ids[rows],
            embeddings=self._emb[rows],
            last_accessed=self._accessed[rows],
            importance=self._importance[rows],
            created=self._created[rows],
            tokens=self._tokens[rows],
            norms=self._norms[rows],
        )

    def remove(self, ids: Iterable[int]) -> None:
        """Drop records (and their rows); the remaining rows keep their order."""
        gone = {i for i in ids if i in self.records}
        if not gone:
            return
        keep = ~np.isin(self._ids[: self.n], list(gone))
        n = int(keep.sum())
        for name in _NAMES:
            col = getattr(self, name)
            col[:n] = col[: self.n][keep]
        self.n = n
        for i in gone:
            del self.records[i]
        self._row = {int(self._ids[r]): r for r in range(n)}

    def touch(self, rid: int, now: float) -> MemoryRecord | None:
        """Move a record's last access to ``now`` (never backwards); the new record or None."""
        rec = self.records[rid]
        if now <= rec.last_accessed:
            return None
        new = rec.model_copy(update={"last_accessed": now})
        self.records[rid] = new
        self._accessed[self._row[rid]] = now
        return new
