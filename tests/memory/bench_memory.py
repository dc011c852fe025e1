"""Benchmark of the memory package: ``python tests/memory/bench_memory.py``.

Prints encoder latency (all-MiniLM-L6-v2 numpy, single and batch-32),
retrieval latency over 10k records and reload time. Not collected by pytest.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import fakeredis
import numpy as np

from modules.memory import HashingEncoder, MemoryStream, MiniLMEncoder, NewMemory
from modules.memory.retrieval import Candidates, score, select

MOODS = ("happy", "tired", "curious")


def sentences(n: int) -> list[str]:
    return [
        f"Agent {i} saw Bob mine {i % 7 + 1} iron ore near the cave at dusk "
        f"and felt {MOODS[i % 3]}."
        for i in range(n)
    ]


def bench_encoder() -> None:
    enc = MiniLMEncoder(cache_size=0)
    t0 = time.perf_counter()
    enc.load()
    print(f"MiniLM load: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    texts = sentences(64)
    print(f"tokens per sentence: {statistics.mean(enc.token_count(t) for t in texts):.1f}")
    enc.encode(texts[:4])
    single, batch = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        for t in texts[:32]:
            enc.encode([t])
        single.append((time.perf_counter() - t0) / 32 * 1e3)
        t0 = time.perf_counter()
        enc.encode(texts[32:])
        batch.append((time.perf_counter() - t0) / 32 * 1e3)
    print(f"encode single: {min(single):.2f} ms/sentence (median {statistics.median(single):.2f})")
    print(f"encode batch-32: {min(batch):.2f} ms/sentence (median {statistics.median(batch):.2f})")


def bench_scoring(n: int = 10_000) -> None:
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((n, 384)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    c = Candidates(
        ids=np.arange(1, n + 1, dtype=np.int64),
        embeddings=emb,
        last_accessed=rng.uniform(0, 100, n),
        importance=rng.integers(1, 11, n).astype(np.float64),
        created=rng.uniform(0, 100, n),
        tokens=rng.integers(5, 40, n),
        norms=np.ones(n, dtype=np.float32),
    )
    times = []
    for i in range(100):
        t0 = time.perf_counter()
        select(score(c, emb[i], 100.0), c, 30, 600)
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"score+select over {n}: median {statistics.median(times):.2f} ms")


async def bench_stream(n: int = 10_000) -> None:
    redis = fakeredis.aioredis.FakeRedis()
    enc = HashingEncoder()
    s = await MemoryStream.open(redis, run="bench", agent="a", encoder=enc, clock=lambda: 0.0)
    rng = np.random.default_rng(1)
    words = [
        "bob",
        "ann",
        "farm",
        "cave",
        "iron",
        "gold",
        "wheat",
        "zombie",
        "vote",
        "tax",
        "diamond",
        "house",
        "bread",
        "gift",
    ]
    items = [
        NewMemory(" ".join(rng.choice(words, 8)), "observation", created=i / 100) for i in range(n)
    ]
    for j in range(0, n, 500):
        await s.add_many(items[j : j + 500])
    q = enc.encode(["bob farm"])[0]
    times = []
    for i in range(50):
        t0 = time.perf_counter()
        await s.retrieve(q, k=30, token_budget=600, now=200.0 + i)
        times.append((time.perf_counter() - t0) * 1e3)
    print(
        f"MemoryStream.retrieve over {n} (fakeredis write-through): "
        f"median {statistics.median(times):.2f} ms"
    )
    t0 = time.perf_counter()
    await MemoryStream.open(redis, run="bench", agent="a", encoder=enc, clock=lambda: 0.0)
    print(f"reload {n} records: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    await redis.aclose()


if __name__ == "__main__":
    bench_encoder()
    bench_scoring()
    asyncio.run(bench_stream())
