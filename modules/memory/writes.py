"""What each change of a memory stream queues in its Redis transaction.

The layout is described in :mod:`modules.memory.persistence`; ``keys`` maps each of its key
names to the stream's full key. Each function adds commands to a MULTI/EXEC pipeline the
stream executes (or a shared per-tick transaction, see :mod:`modules.memory.store`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from redis.asyncio.client import Pipeline
from redis.typing import EncodableT, FieldT

from modules.memory.encoder import FloatArray
from modules.memory.records import MemoryRecord

__all__ = ["queue_add", "queue_forget", "queue_reflected", "queue_touch"]


def queue_add(
    pipe: Pipeline,
    keys: Mapping[str, str],
    records: Sequence[MemoryRecord],
    vectors: FloatArray,
    last_id: int,
    counted: float,
) -> None:
    """New records, their embeddings and order, the last id, and the trigger's increase."""
    record_json: dict[FieldT, EncodableT] = {str(r.id): r.model_dump_json() for r in records}
    emb: dict[FieldT, EncodableT] = {
        str(r.id): v.astype("<f4").tobytes() for r, v in zip(records, vectors, strict=True)
    }
    pipe.hset(keys["records"], mapping=record_json)
    pipe.hset(keys["emb"], mapping=emb)
    pipe.rpush(keys["order"], *[r.id for r in records])
    pipe.set(keys["seq"], last_id)
    if counted:
        pipe.incrbyfloat(keys["since_reflection"], counted)


def queue_forget(
    pipe: Pipeline, keys: Mapping[str, str], gone: Sequence[str], kept: Iterable[int]
) -> None:
    """Records ``gone`` (ids) deleted; the order rewritten as the ``kept`` ids, ascending."""
    pipe.hdel(keys["records"], *gone)
    pipe.hdel(keys["emb"], *gone)
    pipe.delete(keys["order"])
    remaining = sorted(kept)
    if remaining:
        pipe.rpush(keys["order"], *remaining)


def queue_touch(pipe: Pipeline, keys: Mapping[str, str], records: Sequence[MemoryRecord]) -> None:
    """Records rewritten (a new ``last_accessed``)."""
    mapping: dict[FieldT, EncodableT] = {str(r.id): r.model_dump_json() for r in records}
    pipe.hset(keys["records"], mapping=mapping)


def queue_reflected(
    pipe: Pipeline, keys: Mapping[str, str], consumed: float | None, now: float
) -> None:
    """A completed reflection: the trigger zeroed (or ``consumed`` taken off it; the reply
    of this first command is the new sum), the count and time of reflections."""
    if consumed is None:
        pipe.set(keys["since_reflection"], 0)
    else:
        pipe.incrbyfloat(keys["since_reflection"], -float(consumed))
    pipe.hincrby(keys["meta"], "reflections", 1)
    pipe.hset(keys["meta"], "last_reflection", repr(now))
