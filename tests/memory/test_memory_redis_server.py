"""The memory stream against a real redis-server (started and stopped by the fixture)."""

from __future__ import annotations

import asyncio
import shutil
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from modules.memory import HashingEncoder, MemoryStream, NewMemory

pytestmark = pytest.mark.services


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisProcess:
    """One redis-server on a loopback port with its data in ``data_dir`` (AOF on, RDB off)."""

    def __init__(self, data_dir: Path) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server must be on PATH for the services tests"
        self.binary = binary
        self.data_dir = data_dir
        self.port = _free_port()
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.data_dir),
            "--save",
            "",
            "--appendonly",
            "yes",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        client = Redis(host="127.0.0.1", port=self.port)
        try:
            async with asyncio.timeout(10):
                while True:  # poll until PING answers (or the timeout fails the test)
                    assert self.proc.returncode is None, "redis-server exited early"
                    try:
                        if await client.ping():
                            return
                    except (RedisConnectionError, OSError):
                        await asyncio.sleep(0.05)
        finally:
            await client.aclose()

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.returncode is not None:
            return
        proc.terminate()  # SIGTERM: redis flushes the AOF and exits
        try:
            async with asyncio.timeout(10):
                await proc.wait()
        except TimeoutError:
            proc.kill()
            await proc.wait()

    def client(self) -> Redis:
        return Redis(host="127.0.0.1", port=self.port)


@pytest.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[RedisProcess]:
    server = RedisProcess(tmp_path)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def test_stream_persists_in_real_redis(own_redis: RedisProcess) -> None:
    now = [1.0]
    encoder = HashingEncoder()
    first = own_redis.client()
    s1 = await MemoryStream.open(
        first, run="it", agent="Ann", encoder=encoder, clock=lambda: now[0]
    )
    await s1.seed_from_identity(["You are Ann; you farm wheat."], ["The well is at (0, 64, 0)."])
    await s1.add_many(
        [NewMemory(f"Bob traded {i} wheat for iron", "observation", 4) for i in range(50)]
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
