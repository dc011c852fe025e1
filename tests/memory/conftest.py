"""Fixtures of the memory tests: fake Redis server, manual game clock, encoders."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import fakeredis
import numpy as np
import pytest
from redis.asyncio import Redis

from modules.memory import HashingEncoder, MiniLMEncoder
from modules.memory.encoder import FloatArray
from tests.core.helpers import ManualClock


class TableEncoder:
    """Maps known texts to hand-picked vectors (for hand-computed retrieval cases)."""

    name = "table"

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = {k: np.asarray(v, dtype=np.float32) for k, v in table.items()}
        self.dim = len(next(iter(self.table.values())))

    def encode(self, texts: Sequence[str]) -> FloatArray:
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


@pytest.fixture
def fake_server() -> fakeredis.FakeServer:
    return fakeredis.FakeServer()


@pytest.fixture
async def redis(fake_server: fakeredis.FakeServer) -> AsyncIterator[Redis]:
    client = fakeredis.aioredis.FakeRedis(server=fake_server)
    yield client
    await client.aclose()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def hashing() -> HashingEncoder:
    return HashingEncoder()


@pytest.fixture(scope="session")
def minilm() -> MiniLMEncoder:
    encoder = MiniLMEncoder()
    encoder.load()
    return encoder


@pytest.fixture
def table_encoder() -> type[TableEncoder]:
    return TableEncoder
