"""The memory stream against a real redis-server (started and stopped by the fixture)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from agent_runtime.services import RedisServer
from modules.memory import HashingEncoder, MemoryStream, NewMemory

pytestmark = pytest.mark.services


class RedisProcess:
    """The runtime's embedded redis-server (AOF on), restartable on the same port and data dir."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port: int | None = None
        self.server: RedisServer | None = None

    async def start(self) -> None:
        self.server = RedisServer(self.data_dir, port=self.port)
        await self.server.__aenter__()
        self.port = self.server.port

    async def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            await server.__aexit__(None, None, None)  # SIGTERM: redis flushes the AOF

    def client(self) -> Redis:
        return Redis(host="127.0.0.1", port=self.port or 0)


@pytest.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[RedisProcess]:
    server = RedisProcess(tmp_path)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _letters(i: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[i % 26] + "abcdefghijklmnopqrstuvwxyz"[i // 26]


async def test_stream_persists_in_real_redis(own_redis: RedisProcess) -> None:
    now = [1.0]
    encoder = HashingEncoder()
    first = own_redis.client()
    s1 = await MemoryStream.open(
        first, run="it", agent="Ann", encoder=encoder, clock=lambda: now[0]
    )
    await s1.seed_from_identity(["You are Ann; you farm wheat."], ["The well is at (0, 64, 0)."])
    await s1.add_many(
        [  # 50 different trades (repeats would not add to the reflection counter)
            NewMemory(f"Bob traded wheat for iron, trade {_letters(i)}", "observation", 4)
            for i in range(50)
        ]
    )
    base = await s1.add("Bob trades fairly", "reflection", 6, evidence=(5, 6))
    hits = await s1.retrieve("trading wheat with Bob", k=5, token_budget=60, now=3.0)
    assert hits and all(h.record.last_accessed < 3.0 for h in hits)
    await s1.mark_reflected(consumed=100.0, now=3.0)
    snapshot = await s1.export()
    await first.aclose()

    # a new process on the same server
    second = own_redis.client()
    s2 = await MemoryStream.open(
        second, run="it", agent="Ann", encoder=encoder, clock=lambda: now[0]
    )
    assert await s2.export() == snapshot
    assert (await s2.get([base.id]))[0].evidence == (5, 6)
    refreshed = await s2.get([h.record.id for h in hits])
    assert all(r.last_accessed == 3.0 for r in refreshed)
    assert await s2.importance_since_reflection() == 200.0 - 100.0
    assert await s2.count() == 54
    await second.aclose()

    # the server itself restarts from its append-only file
    await own_redis.stop()
    await own_redis.start()
    third = own_redis.client()
    s3 = await MemoryStream.open(
        third, run="it", agent="Ann", encoder=encoder, clock=lambda: now[0]
    )
    assert await s3.export() == snapshot
    assert (await s3.add("Dan arrived", "observation")).id == 55
    await third.aclose()
