"""MemoryStream on fakeredis: write-through, last-access updates, restart reload, seeding."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import fakeredis
import numpy as np
import pytest
from redis.asyncio import Redis

from modules.memory import HashingEncoder, MemoryStream, MiniLMEncoder, NewMemory, split_sentences
from modules.memory.encoder import FloatArray
from modules.memory.persistence import stream_prefix
from tests.core.helpers import wait_until

P = stream_prefix("run1", "Ann")


def _tag(i: int) -> str:
    """A different word for each ``i`` (numbers alone would make repeats: the stream's
    gist ignores them)."""
    return "abcdefghijklmnopqrstuvwxyz"[i % 26] + "abcdefghijklmnopqrstuvwxyz"[i // 26 % 26]


async def raw(redis: Redis, key: str, field: str | None = None) -> bytes:
    """A stored value (bytes), asserting that it exists."""
    value = await (redis.get(key) if field is None else redis.hget(key, field))
    assert isinstance(value, bytes), (key, field, value)
    return value


async def open_stream(redis: Redis, encoder: Any, clock: Any, **kw: Any) -> MemoryStream:
    return await MemoryStream.open(
        redis, run="run1", agent="Ann", encoder=encoder, clock=clock, **kw
    )


async def test_add_writes_through_to_documented_keys(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    clock.t = 3.5
    s = await open_stream(redis, hashing, clock)
    r1 = await s.add("Bob gave me a loaf of bread", "observation")
    r2 = await s.add("I will mine iron tomorrow", "plan", importance=4, source="llm:test")
    assert (r1.id, r2.id) == (1, 2)
    assert r1.created == r1.last_accessed == 3.5
    assert r1.source == "heuristic" and r1.importance == 6  # exchange keyword
    assert r2.source == "llm:test" and r2.importance == 4
    stored = json.loads(await raw(redis, P + "records", "1"))
    assert stored["text"] == "Bob gave me a loaf of bread" and stored["kind"] == "observation"
    blob = await raw(redis, P + "emb", "2")
    vec = np.frombuffer(blob, dtype="<f4")
    assert vec.shape == (384,)
    np.testing.assert_allclose(vec, hashing.encode(["I will mine iron tomorrow"])[0])
    assert await redis.lrange(P + "order", 0, -1) == [b"1", b"2"]
    assert int(await raw(redis, P + "seq")) == 2
    # a plan is the agent's own thought: only the perceived observation adds to the trigger
    assert float(await raw(redis, P + "since_reflection")) == 6.0
    assert await s.importance_since_reflection() == 6.0
    meta = await redis.hgetall(P + "meta")
    assert meta[b"encoder"] == hashing.name.encode()
    assert await s.count() == 2


async def test_evidence_must_exist_and_text_must_not_be_empty(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    with pytest.raises(ValueError, match="evidence"):
        await s.add("a thought", "reflection", 5, evidence=(42,))
    with pytest.raises(ValueError):
        await s.add("   ", "observation")
    with pytest.raises(RuntimeError):
        await MemoryStream(redis, run="run1", agent="Ann", encoder=hashing, clock=clock).count()


async def test_decode_responses_client_is_rejected(
    fake_server: fakeredis.FakeServer, hashing: HashingEncoder, clock: Any
) -> None:
    client = fakeredis.aioredis.FakeRedis(server=fake_server, decode_responses=True)
    with pytest.raises(ValueError, match="decode_responses"):
        MemoryStream(client, run="r", agent="a", encoder=hashing, clock=clock)
    await client.aclose()


async def test_retrieve_updates_last_access_in_memory_and_redis(
    redis: Redis, table_encoder: Any, clock: Any
) -> None:
    enc = table_encoder(
        {"apple pie": [1, 0], "bread oven": [0, 1], "apple tree": [0.6, 0.8], "q": [1, 0]}
    )
    s = await open_stream(redis, enc, clock)
    clock.t = 0.0
    a = await s.add("apple pie", "observation", importance=2)
    b = await s.add("bread oven", "observation", importance=8)
    clock.t = 5.0
    c = await s.add("apple tree", "observation", importance=5)
    # hand-computed like the pure case but decay 0.5 and accesses at 0, 0, 5; now = 10:
    # recency raw: a 1/1024, b 1/1024, c 1/32 -> normalised a 0, b 0, c 1
    # importance: a 0, b 1, c 0.5; relevance: a 1, b 0, c 0.6
    # totals: a 1.0, b 1.0, c 2.1 -> c first, then the a/b tie goes to the newer id (b)
    hits = await s.retrieve("q", k=2, now=10.0, decay=0.5)
    assert [h.record.id for h in hits] == [c.id, b.id]
    assert hits[0].score == pytest.approx(2.1, abs=1e-6)
    assert hits[1].score == pytest.approx(1.0, abs=1e-6)
    assert hits[0].record.last_accessed == 5.0  # as scored, before the refresh
    got = {r.id: r for r in await s.get([a.id, b.id, c.id])}
    assert got[c.id].last_accessed == 10.0 and got[b.id].last_accessed == 10.0
    assert got[a.id].last_accessed == 0.0  # not returned, not touched
    assert got[c.id].created == 5.0  # creation time never changes
    stored = json.loads(await raw(redis, P + "records", str(b.id)))
    assert stored["last_accessed"] == 10.0
    # now a is the only stale memory: recency a 0, b 1, c 1; importance 0, 1, 0.5; rel 1, 0, 0.6
    hits = await s.retrieve("q", k=3, now=10.0, decay=0.5, update_access=False)
    assert [h.record.id for h in hits] == [c.id, b.id, a.id]
    assert [h.score for h in hits] == pytest.approx([2.1, 2.0, 1.0], abs=1e-6)


async def test_retrieve_never_moves_last_access_backwards(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    r = await s.add("I found a diamond", "observation", created=20.0)
    await s.retrieve("diamond", k=1, now=10.0)
    assert (await s.get([r.id]))[0].last_accessed == 20.0


async def test_kinds_filter_recent_and_budget(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    await s.add_many(
        [
            NewMemory("Bob said hello to me", "conversation", created=1.0),
            NewMemory("I chopped an oak log", "action", created=2.0),
            NewMemory("Bob looks tired today", "observation", created=3.0),
            NewMemory("Bob trades bread for iron", "reflection", 6, created=2.5),
        ]
    )
    recent = await s.recent(3)
    assert [r.created for r in recent] == [2.0, 2.5, 3.0]  # oldest first
    assert [r.kind for r in await s.recent(5, kinds=["action", "conversation"])] == [
        "conversation",
        "action",
    ]
    hits = await s.retrieve("Bob", k=10, now=4.0, kinds=["reflection"])
    assert [h.record.kind for h in hits] == ["reflection"]
    hits = await s.retrieve("Bob", k=10, now=4.0, token_budget=6)
    assert sum(h.record.tokens for h in hits) <= 6 and hits


async def test_restart_reloads_everything(
    fake_server: fakeredis.FakeServer, hashing: HashingEncoder, clock: Any
) -> None:
    first = fakeredis.aioredis.FakeRedis(server=fake_server)
    s1 = await open_stream(first, hashing, clock)
    await s1.seed_from_identity(["You are Ann; you love farming."], ["The farm is at (3, 64, 9)."])
    clock.t = 2.0
    for text in ["Bob attacked a zombie", "I walked to the farm", "Cara voted yes"]:
        await s1.add(text, "observation")
    before_hits = await s1.retrieve("zombie", k=2, now=6.0)
    await s1.mark_reflected(consumed=5.0, now=6.0)
    snapshot = await s1.export()
    await first.aclose()  # the process "dies"

    second = fakeredis.aioredis.FakeRedis(server=fake_server)
    s2 = await open_stream(second, hashing, clock)
    assert await s2.export() == snapshot
    assert await s2.count() == 6
    assert s2.reflections == 1 and s2.last_reflection == 6.0
    assert await s2.importance_since_reflection() == snapshot["since_reflection"]
    np.testing.assert_array_equal(s2.columns.embeddings, s1.columns.embeddings)
    after_hits = await s2.retrieve("zombie", k=2, now=6.0)
    assert [h.record.id for h in after_hits] == [h.record.id for h in before_hits]
    # seeding is idempotent across restarts
    assert await s2.seed_from_identity(["You are Ann."]) == []
    r = await s2.add("Dan joined the village", "observation")
    assert r.id == 7
    await second.aclose()


async def test_reload_with_another_encoder_re_encodes(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s1 = await open_stream(redis, hashing, clock)
    await s1.add("Bob gave me bread", "observation")
    other = HashingEncoder(bigrams=False)
    s2 = await open_stream(redis, other, clock)
    np.testing.assert_allclose(s2.columns.embeddings[0], other.encode(["Bob gave me bread"])[0])
    assert (await raw(redis, P + "meta", "encoder")) == other.name.encode()
    stored = np.frombuffer(await raw(redis, P + "emb", "1"), dtype="<f4")
    np.testing.assert_allclose(stored, other.encode(["Bob gave me bread"])[0])


async def test_seed_one_record_per_sentence(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    seeds = await s.seed_from_identity(
        traits=["You are curious. You like caves!", "You distrust strangers; you share food."],
        location_memories=["The town hall is at (0, 64, 0). The mine is at (-40, 12, 85.5)."],
        community_goal="Survive together and build an efficient village.",
        created=0.0,
    )
    assert [r.text for r in seeds] == [
        "You are curious.",
        "You like caves!",
        "You distrust strangers",
        "you share food.",
        "The town hall is at (0, 64, 0).",
        "The mine is at (-40, 12, 85.5).",
        "Community goal: Survive together and build an efficient village.",
    ]
    assert {r.kind for r in seeds} == {"seed"} and {r.source for r in seeds} == {"seed"}
    assert [r.importance for r in seeds] == [6, 6, 6, 6, 5, 5, 8]
    assert await s.importance_since_reflection() == 0.0  # seeds do not trigger reflection


def test_split_sentences() -> None:
    assert split_sentences("  One. Two?  Three!; Four;five ") == [
        "One.",
        "Two?",
        "Three!",
        "Four;five",
    ]
    assert split_sentences("") == []


async def test_mark_reflected_keeps_importance_added_meanwhile(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    await s.add("x happened", "observation", importance=7)
    consumed = await s.importance_since_reflection()
    await s.add("y happened", "observation", importance=3)  # while "reflecting"
    await s.mark_reflected(consumed)
    assert await s.importance_since_reflection() == 3.0
    assert float(await raw(redis, P + "since_reflection")) == 3.0
    await s.mark_reflected()
    assert await s.importance_since_reflection() == 0.0


async def test_many_records_grow_the_cache(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    await s.add_many([NewMemory(f"note number {i}", "observation", 2) for i in range(300)])
    assert await s.count() == 300
    hits = await s.retrieve("note number 123", k=1, now=0.0)
    assert hits[0].record.text == "note number 123"


async def test_invalid_importance_burns_no_id(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    with pytest.raises(ValueError, match="importance"):
        await s.add("too much", "observation", importance=11)
    assert (await s.add("fine", "observation", importance=10)).id == 1


async def test_lost_id_counter_is_repaired_on_load(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s1 = await open_stream(redis, hashing, clock)
    await s1.add("first", "observation")
    await s1.add("second", "observation")
    await redis.delete(P + "seq")
    s2 = await open_stream(redis, hashing, clock)
    assert (await s2.add("third", "observation")).id == 3


async def test_concurrent_adds_get_unique_ids_and_survive_reload(
    redis: Redis, hashing: HashingEncoder, clock: Any
) -> None:
    s = await open_stream(redis, hashing, clock)
    records = await asyncio.gather(
        *(s.add(f"event {_tag(i)}", "observation", 3) for i in range(50))
    )
    assert sorted(r.id for r in records) == list(range(1, 51))
    assert await s.importance_since_reflection() == 150.0
    reloaded = await open_stream(redis, hashing, clock)
    assert await reloaded.export() == await s.export()


async def test_semantic_retrieval_with_minilm(
    redis: Redis, minilm: MiniLMEncoder, clock: Any
) -> None:
    s = await open_stream(redis, minilm, clock)
    assert s.offload_encoding  # the real encoder runs in a worker thread
    await s.add_many(
        [
            NewMemory("I planted wheat and carrots at the farm", "action", 4),
            NewMemory("Bob fought a zombie at night", "observation", 4),
            NewMemory("The blacksmith sells iron tools", "observation", 4),
        ]
    )
    hits = await s.retrieve("Where do crops grow?", k=3, now=0.0, weights=(0, 0, 1))
    assert hits[0].record.text == "I planted wheat and carrots at the farm"
    hits = await s.retrieve("Was anyone in danger?", k=1, now=0.0, weights=(0, 0, 1))
    assert hits[0].record.text == "Bob fought a zombie at night"


async def test_offloaded_encodings_are_batched_queries_first_and_cancel_at_once() -> None:
    """Encodings waiting while one batch runs go to the worker thread together, retrieval
    queries before stores; a stop cancels the waiting ones without running them (a stopped
    MiniLM village used to wait minutes at exit for every queued encoding)."""
    import threading

    from modules.memory.offload import BATCH_TEXTS

    calls: list[list[str]] = []
    passes = threading.Semaphore(0)  # one release = one batch may finish

    class Slow(HashingEncoder):
        def encode(self, texts: Sequence[str]) -> FloatArray:
            calls.append(list(texts))
            assert passes.acquire(timeout=5)
            return super().encode(texts)

    s = MemoryStream(
        fakeredis.aioredis.FakeRedis(),
        run="r",
        agent="a",
        encoder=Slow(),
        clock=lambda: 0.0,
        offload_encoding=True,
    )
    first = asyncio.create_task(s._encode(["first"]))
    await wait_until(lambda: len(calls) == 1, 5, "the first batch in the thread")
    stores = [asyncio.create_task(s._encode([f"store {i}", f"more {i}"])) for i in range(40)]
    query = asyncio.create_task(s._encode(["where is the farm?"], urgent=True))
    await asyncio.sleep(0)
    passes.release()
    await first
    await wait_until(lambda: len(calls) == 2, 5, "the second batch in the thread")
    # the second pass: the query first, then as many stores as fit in one batch
    assert calls[1][0] == "where is the farm?"
    assert len(calls[1]) == 1 + 2 * ((BATCH_TEXTS - 1) // 2)
    # a stop while that batch runs: the stores still waiting are cancelled, never encoded
    batched, waiting = stores[: (BATCH_TEXTS - 1) // 2], stores[(BATCH_TEXTS - 1) // 2 :]
    for t in waiting:
        t.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
    passes.release()
    got = await query
    assert got.shape == (1, s.encoder.dim)
    np.testing.assert_allclose(got[0], HashingEncoder().encode(["where is the farm?"])[0])
    assert [len(v) for v in await asyncio.gather(*batched)] == [2] * len(batched)
    for _ in range(3):
        passes.release()
    await asyncio.sleep(0.2)  # nothing else starts after them
    assert len(calls) == 2
