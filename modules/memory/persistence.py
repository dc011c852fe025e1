"""How one memory stream is laid out in Redis, and how it is read back.

Redis layout (``P = piano:{run}:agent:{name}:mem:``):

============================  ======  ===================================================
key                           type    content
============================  ======  ===================================================
``P records``                 hash    record id -> record JSON (:class:`MemoryRecord`)
``P emb``                     hash    record id -> embedding, float32 little-endian bytes
``P order``                   list    record ids in insertion order (for external readers)
``P seq``                     string  last allocated record id (set with each write)
``P since_reflection``        string  importance summed since the last reflection (float)
``P meta``                    hash    ``encoder`` name, ``dim``, ``reflections`` count,
                                      ``last_reflection`` (game hours)
============================  ======  ===================================================
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from redis.asyncio import Redis

from modules.memory.encoder import Encoder, FloatArray
from modules.memory.records import MemoryRecord

__all__ = ["KEY_NAMES", "Stored", "decode", "read_stream", "stream_prefix"]

log = logging.getLogger(__name__)

T = TypeVar("T")

KEY_NAMES = ("records", "emb", "order", "seq", "since_reflection", "meta")


def stream_prefix(run: str, agent: str) -> str:
    """Redis key prefix of one agent's memory stream."""
    return f"piano:{run}:agent:{agent}:mem:"


def decode(v: bytes | str) -> str:
    return v.decode("utf-8") if isinstance(v, bytes) else v


@dataclass(frozen=True, slots=True)
class Stored:
    records: list[MemoryRecord]  # by id
    vectors: dict[int, FloatArray]
    since_reflection: float
    reflections: int
    last_reflection: float | None
    last_id: int = 0  # the highest id ever handed out (the counter, or the newest record)


async def read_stream(
    redis: Redis,
    k: Mapping[str, str],
    encoder: Encoder,
    encode: Callable[[Sequence[str]], Awaitable[FloatArray]],
    io: Callable[[Awaitable[Any]], Awaitable[Any]],
) -> Stored:
    """Read a whole stream; re-encode embeddings of another encoder and repair the id counter."""
    pipe = redis.pipeline(transaction=True)
    pipe.hgetall(k["records"])
    pipe.hgetall(k["emb"])
    pipe.get(k["since_reflection"])
    pipe.hgetall(k["meta"])
    pipe.get(k["seq"])
    raw_records, raw_emb, raw_since, raw_meta, raw_seq = await io(pipe.execute())
    meta = {decode(a): decode(b) for a, b in (raw_meta or {}).items()}
    records = sorted(
        (MemoryRecord.model_validate_json(v) for v in (raw_records or {}).values()),
        key=lambda r: r.id,
    )
    dim = encoder.dim
    same_space = meta.get("encoder") == encoder.name and meta.get("dim") == str(dim)
    vectors: dict[int, FloatArray] = {}
    if same_space:
        for key, blob in (raw_emb or {}).items():
            vec = np.frombuffer(blob, dtype="<f4")
            if vec.shape[0] == dim:
                vectors[int(decode(key))] = vec.astype(np.float32)
    elif records:
        log.warning(
            "memory %s was embedded with %s; re-encoding %d records with %s",
            k["records"],
            meta.get("encoder"),
            len(records),
            encoder.name,
        )
    missing = [r for r in records if r.id not in vectors]
    if missing:
        fresh = await encode([r.text for r in missing])
        for r, vec in zip(missing, fresh, strict=True):
            vectors[r.id] = vec
        pipe = redis.pipeline(transaction=True)
        pipe.hset(
            k["emb"],
            mapping={str(r.id): vectors[r.id].astype("<f4").tobytes() for r in missing},
        )
        await io(pipe.execute())
    last_id = int(decode(raw_seq)) if raw_seq is not None else 0
    if records and last_id < records[-1].id:
        # never hand out an id twice, even if the counter was lost or restored from older data
        log.warning("%s: id counter behind the records; repairing", k["records"])
        last_id = records[-1].id
        await io(redis.set(k["seq"], last_id))
    if not same_space:
        await io(redis.hset(k["meta"], mapping={"encoder": encoder.name, "dim": dim}))
    last = meta.get("last_reflection")
    return Stored(
        records=records,
        vectors=vectors,
        since_reflection=float(decode(raw_since)) if raw_since is not None else 0.0,
        reflections=int(meta.get("reflections", "0")),
        last_reflection=float(last) if last else None,
        last_id=last_id,
    )
