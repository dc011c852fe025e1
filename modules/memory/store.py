"""Per-agent memory stream in Redis with an in-process numpy cache.

The Redis layout is described in :mod:`modules.memory.persistence`.

One process owns an agent's stream. It loads everything once
(:meth:`MemoryStream.load`, done by :meth:`MemoryStream.open`) into numpy
columns; reads (``get``, ``recent``, ``retrieve``) are served from memory and
every change is written through to Redis with a MULTI/EXEC pipeline, so a
restarted process reloads exactly the same stream (embeddings of another
encoder are re-encoded on load). The stream is bounded: see
:mod:`modules.memory.forgetting`.

The Redis client must return bytes (``decode_responses=False``): embeddings
are binary. Every Redis round trip runs under ``io_timeout`` seconds; retries
are the client's own policy (``redis.asyncio.Redis(retry=...)``) since
``INCRBYFLOAT`` must not be replayed blindly.

Record ids are allocated in process (the owner holds the highest id, read on load, and
writes it to ``seq`` with the records), so storing memories takes no round trip of its
own. Given a ``writer`` (the village passes :meth:`agent_runtime.state.store.StateStore.pipelined`),
a stream's writes join the process's per-tick transaction with every other agent's;
without one, each write is its own MULTI/EXEC transaction.

Times are game hours (see :mod:`modules.memory.records`); ``clock`` returns
the current game time and is used whenever ``created``/``now`` is omitted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from modules.memory.columns import Columns
from modules.memory.encoder import Encoder, FloatArray, HashingEncoder
from modules.memory.forgetting import plan_forgetting
from modules.memory.importance import ImportanceRater, heuristic_importance
from modules.memory.intake import check_new, new_records
from modules.memory.offload import encode_queue
from modules.memory.persistence import KEY_NAMES, decode, read_stream, stream_prefix
from modules.memory.records import MemoryKind, MemoryRecord, NewMemory
from modules.memory.retrieval import DEFAULT_DECAY, DEFAULT_WEIGHTS, ScoredMemory, score, select
from modules.memory.seeding import seed_items
from modules.memory.trigger import REFLECTION_COUNTED_KINDS, RETENTION, ReflectionTrigger
from modules.memory.writes import queue_add, queue_forget, queue_reflected, queue_touch

__all__ = ["DEFAULT_MAX_RECORDS", "MemoryStream", "Writer"]

log = logging.getLogger(__name__)

T = TypeVar("T")
#: runs ``commands(pipe)`` in a transaction and returns their replies
Writer = Callable[[Callable[[Pipeline], object]], Awaitable[list[Any]]]

#: Default bound on one stream (about 15 MB with MiniLM vectors; hours of a busy agent).
DEFAULT_MAX_RECORDS = 10_000

@dataclass(eq=False)
class MemoryStream:
    """One agent's memory stream.

    Args:
        redis: an ``redis.asyncio.Redis`` (or fakeredis) client with
            ``decode_responses=False``.
        run / agent: namespace of the keys.
        encoder: shared sentence encoder (:class:`~modules.memory.encoder.Encoder`).
        clock: current game time in hours.
        rater: importance rater used when ``add`` gets no importance.
        offload_encoding: run ``encoder.encode`` in a worker thread (default:
            yes unless the encoder is the cheap :class:`HashingEncoder`).
        io_timeout: seconds allowed per Redis round trip.
        counted_kinds: kinds whose importance feeds the reflection trigger.
        retention: a record of those kinds whose :func:`gist` is among the latest
            ``retention`` ones does not feed it (a repeat; 0: every record counts).
        max_records: the bound on the stream (see :mod:`modules.memory.forgetting`);
            ``None`` keeps everything.
        keep_recent: the newest records that are never forgotten.
        writer: runs a caller's commands in a shared transaction and returns their
            replies (:meth:`StateStore.pipelined`); None: one transaction per write.
    """

    redis: Redis
    _: KW_ONLY
    run: str
    agent: str
    encoder: Encoder
    clock: Callable[[], float]
    rater: ImportanceRater = heuristic_importance
    offload_encoding: bool | None = None
    io_timeout: float = 5.0
    counted_kinds: frozenset[MemoryKind] = REFLECTION_COUNTED_KINDS
    retention: int = RETENTION
    max_records: int | None = DEFAULT_MAX_RECORDS
    keep_recent: int = 500
    writer: Writer | None = None
    forgotten: int = field(default=0, init=False)
    #: Held by the reflection pipeline so that one agent never reflects twice at once.
    reflection_lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)
    _loaded: bool = field(default=False, init=False)
    _last_id: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.max_records is not None and self.max_records < 10:
            raise ValueError("max_records must be at least 10 (or None)")
        if not self.run or ":" in self.run:
            raise ValueError(f"run must be non-empty without ':', got {self.run!r}")
        if not self.agent or ":" in self.agent:
            raise ValueError(f"agent must be non-empty without ':', got {self.agent!r}")
        if self.io_timeout <= 0:
            raise ValueError("io_timeout must be > 0")
        pool = getattr(self.redis, "connection_pool", None)
        if pool is not None and getattr(pool, "connection_kwargs", {}).get("decode_responses"):
            raise ValueError("MemoryStream needs a Redis client with decode_responses=False")
        if self.offload_encoding is None:
            self.offload_encoding = not isinstance(self.encoder, HashingEncoder)
        self.prefix = stream_prefix(self.run, self.agent)
        self.keys = {name: self.prefix + name for name in KEY_NAMES}
        self.columns = Columns(self.encoder.dim)
        self.trigger = ReflectionTrigger(self.counted_kinds, self.retention)

    @classmethod
    async def open(
        cls,
        redis: Redis,
        *,
        run: str,
        agent: str,
        encoder: Encoder,
        clock: Callable[[], float],
        **kwargs: Any,
    ) -> MemoryStream:
        """Construct and :meth:`load` a stream."""
        stream = cls(redis, run=run, agent=agent, encoder=encoder, clock=clock, **kwargs)
        await stream.load()
        return stream

    async def io(self, aw: Awaitable[T]) -> T:
        async with asyncio.timeout(self.io_timeout):
            return await aw

    async def _write(self, commands: Callable[[Pipeline], object]) -> list[Any]:
        """``commands`` in one transaction (the shared one when there is a writer)."""
        if self.writer is not None:
            return await self.io(self.writer(commands))
        pipe = self.redis.pipeline(transaction=True)
        commands(pipe)
        return list(await self.io(pipe.execute()))

    async def _encode(self, texts: Sequence[str], *, urgent: bool = False) -> FloatArray:
        """Embeddings of ``texts``; offloaded ones go through the loop's batched queue
        (``urgent``: a retrieval query, encoded before waiting stores)."""
        if not texts:
            return np.zeros((0, self.encoder.dim), dtype=np.float32)
        if self.offload_encoding:
            return await encode_queue().encode(self.encoder, texts, urgent=urgent)
        return self.encoder.encode(list(texts))

    async def load(self) -> None:
        """(Re)load the whole stream from Redis into the in-process cache."""
        stored = await read_stream(self.redis, self.keys, self.encoder, self._encode, self.io)
        records, vectors = stored.records, stored.vectors
        self.columns = Columns(self.encoder.dim, max(64, len(records)))
        for r in records:
            self.columns.append(r, vectors[r.id])
        self.trigger.loaded(
            stored.since_reflection, stored.reflections, stored.last_reflection, not records
        )
        self._last_id = stored.last_id
        self._loaded = True
        log.debug("loaded %d memories of %s/%s", self.columns.n, self.run, self.agent)

    def _check(self) -> None:
        if not self._loaded:
            raise RuntimeError("MemoryStream not loaded: use 'await MemoryStream.open(...)'")

    async def add(
        self,
        text: str,
        kind: MemoryKind,
        importance: int | None = None,
        evidence: Iterable[int] = (),
        created: float | None = None,
        *,
        source: str | None = None,
    ) -> MemoryRecord:
        """Store one memory; ``importance`` None -> rated by ``rater`` (source "heuristic")."""
        (record,) = await self.add_many(
            [NewMemory(text, kind, importance, tuple(evidence), created, source)]
        )
        return record

    async def add_many(self, items: Sequence[NewMemory]) -> list[MemoryRecord]:
        """Store several memories with one encoder batch and one Redis transaction."""
        self._check()
        if not items:
            return []
        check_new(items, self.columns.records, self.agent)
        vecs = await self._encode([it.text for it in items])
        # ids in process (one owner per stream): no round trip; no await until queued below,
        # so concurrent writers of this stream queue in the order of their ids
        first_id = self._last_id + 1
        last_id = self._last_id = self._last_id + len(items)
        records = new_records(
            items, first_id=first_id, agent=self.agent, now=self.clock(), rater=self.rater
        )
        counted = float(
            sum(
                r.importance
                for r, item in zip(records, items, strict=True)
                if self.trigger.counts(r, item.counted)
            )
        )
        await self._write(lambda pipe: queue_add(pipe, self.keys, records, vecs, last_id, counted))
        for r, v in zip(records, vecs, strict=True):
            self.columns.append(r, v)
        self.trigger.since += counted
        if self.max_records is not None and self.columns.n > self.max_records:
            await self._forget_routine(self.max_records)
        return records

    async def _forget_routine(self, max_records: int) -> None:
        """Back within ``max_records`` (:mod:`modules.memory.forgetting` decides what goes);
        Redis follows in one transaction, then the summary of what went is remembered."""
        plan = plan_forgetting(self.all_records(), max_records, self.keep_recent)
        if plan is None:
            return
        gone, summary = plan
        ids = [str(r.id) for r in gone]
        self.columns.remove(r.id for r in gone)
        pipe = self.redis.pipeline(transaction=True)
        queue_forget(pipe, self.keys, ids, self.columns.records)
        await self.io(pipe.execute())
        self.forgotten += len(gone)
        log.debug("%s/%s forgot %d routine memories", self.run, self.agent, len(gone))
        await self.add_many([summary])

    @property
    def counted_since_reflection(self) -> int | None:
        """How many records added to the trigger since the last reflection (None: not
        known, the stream was reloaded since)."""
        return self.trigger.counted_n

    async def seed_from_identity(
        self,
        traits: Sequence[str],
        location_memories: Sequence[str] = (),
        community_goal: str | None = None,
        created: float | None = None,
    ) -> list[MemoryRecord]:
        """Seed memories from an agent's YAML identity: one record per sentence.

        Idempotent: if the stream already holds seed records nothing is added
        and ``[]`` is returned (a restarted agent is not seeded twice).
        Importance comes from :data:`SEED_IMPORTANCE`; community-goal
        sentences are stored as ``"Community goal: <sentence>"``.
        """
        self._check()
        if self.columns.has_kind("seed"):
            return []
        items = seed_items(traits, location_memories, community_goal, created)
        return await self.add_many(items)

    async def get(self, ids: Iterable[int]) -> list[MemoryRecord]:
        """Records by id, in the order asked; unknown ids raise ``KeyError``."""
        self._check()
        return [self.columns.records[i] for i in ids]

    async def count(self) -> int:
        self._check()
        return self.columns.n

    async def recent(self, n: int, kinds: Iterable[MemoryKind] | None = None) -> list[MemoryRecord]:
        """The ``n`` most recently created records (ties: higher id), oldest first."""
        self._check()
        return self.columns.recent(n, kinds)

    def all_records(self) -> list[MemoryRecord]:
        """Every record, by id (a copy of the in-process view)."""
        return [self.columns.records[i] for i in sorted(self.columns.records)]

    async def retrieve(
        self,
        query: str | npt.NDArray[np.floating],
        k: int = 10,
        token_budget: int | None = None,
        now: float | None = None,
        weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
        decay: float = DEFAULT_DECAY,
        kinds: Iterable[MemoryKind] | None = None,
        *,
        update_access: bool = True,
    ) -> list[ScoredMemory]:
        """Generative-Agents retrieval (see :mod:`modules.memory.retrieval`), best first.

        Returned records get ``last_accessed = now`` (never moved backwards),
        in memory and in Redis.
        """
        self._check()
        if isinstance(query, str):
            qvec = (await self._encode([query], urgent=True))[0]
        else:
            qvec = np.asarray(query, dtype=np.float32).reshape(-1)
        now = self.clock() if now is None else float(now)
        cands = self.columns.candidates(kinds)
        if cands is None or k <= 0:
            return []
        s = score(cands, qvec, now, weights, decay)
        picked = select(s, cands, k, token_budget)
        results: list[ScoredMemory] = []
        touched: list[MemoryRecord] = []
        for j in picked.tolist():
            rid = int(cands.ids[j])
            rec = self.columns.records[rid]
            results.append(
                ScoredMemory(
                    record=rec,
                    score=float(s.total[j]),
                    recency=float(s.recency[j]),
                    importance=float(s.importance[j]),
                    relevance=float(s.relevance[j]),
                    cosine=float(s.raw_relevance[j]),
                )
            )
            new = self.columns.touch(rid, now) if update_access else None
            if new is not None:
                touched.append(new)
        if touched:
            await self._write(lambda pipe: queue_touch(pipe, self.keys, touched))
        return results

    async def importance_since_reflection(self) -> float:
        """Importance summed over counted kinds since the last :meth:`mark_reflected`."""
        self._check()
        return self.trigger.since

    @property
    def reflections(self) -> int:
        """How many reflections have been completed on this stream."""
        return self.trigger.reflections

    @property
    def last_reflection(self) -> float | None:
        """Game time of the last completed reflection, if any."""
        return self.trigger.last

    async def mark_reflected(self, consumed: float | None = None, now: float | None = None) -> None:
        """Reset the reflection counter.

        ``consumed`` (the counter value when the reflection started) is
        subtracted instead of zeroing, so importance added while a slow
        reflection ran still counts towards the next one.
        """
        self._check()
        now = self.clock() if now is None else float(now)
        res = await self._write(lambda pipe: queue_reflected(pipe, self.keys, consumed, now))
        since = 0.0 if consumed is None else max(0.0, float(decode(res[0])))
        self.trigger.reflected(since, now)

    async def export(self) -> dict[str, Any]:
        """JSON-serialisable snapshot: records (no embeddings) and counters."""
        self._check()
        return {
            "run": self.run,
            "agent": self.agent,
            "encoder": self.encoder.name,
            "dim": self.encoder.dim,
            "since_reflection": self.trigger.since,
            "reflections": self.trigger.reflections,
            "last_reflection": self.trigger.last,
            "records": [r.model_dump(mode="json") for r in self.all_records()],
        }
