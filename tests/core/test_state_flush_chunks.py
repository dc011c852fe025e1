"""A large flush goes out in bounded transactions (each one a short stretch of the event
loop); a failed one keeps what was not written for the next flush."""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import ConnectionError as RedisConnectionError

from agent_runtime.state import StateStore, keys
from agent_runtime.state.sections import Goals
from agent_runtime.state.store import FLUSH_CHUNK
from tests.core.helpers import wait_until


class CountingRedis:
    """A fake Redis counting transactions; ``fail_at`` makes that transaction fail."""

    def __init__(self, redis: Redis, fail_at: int | None = None) -> None:
        self._redis = redis
        self.pipelines = 0
        self.fail_at = fail_at

    def pipeline(self, *a: Any, **kw: Any) -> Pipeline:
        self.pipelines += 1
        pipe = self._redis.pipeline(*a, **kw)
        if self.pipelines == self.fail_at:

            async def broken(*_: Any, **__: Any) -> list[Any]:
                raise RedisConnectionError("lost")

            pipe.execute = broken  # type: ignore[method-assign]
        return pipe

    def __getattr__(self, name: str) -> Any:
        return getattr(self._redis, name)


def _dirty_agents(store: StateStore, n: int) -> None:
    for i in range(n):
        store.agent(f"A{i}").set("goals", Goals(current=f"goal {i}"), writer="goal_generation")


async def test_a_large_flush_is_written_in_bounded_transactions(run_id: str) -> None:
    fake = fakeredis.FakeAsyncRedis()
    counting: Any = CountingRedis(fake)
    store = StateStore(counting, run_id)  # not entered: flushed by hand
    _dirty_agents(store, 2 * FLUSH_CHUNK + 10)
    assert await store.flush() == 2 * FLUSH_CHUNK + 10
    assert counting.pipelines == 3  # not one transaction of 410 fields
    for i in (0, FLUSH_CHUNK, 2 * FLUSH_CHUNK + 9):
        assert b"goal" in (await fake.hget(keys.state(run_id, f"A{i}"), "goals") or b"")


async def test_a_failed_transaction_keeps_the_rest_for_the_next_flush(run_id: str) -> None:
    fake = fakeredis.FakeAsyncRedis()
    counting: Any = CountingRedis(fake, fail_at=2)
    store = StateStore(counting, run_id)
    _dirty_agents(store, 2 * FLUSH_CHUNK + 10)
    with pytest.raises(RedisConnectionError):
        await store.flush()
    assert store.errors == 1
    # the first transaction was written; the failed one and the one after are dirty again
    assert len(store._dirty) == FLUSH_CHUNK + 10
    assert await store.flush() == FLUSH_CHUNK + 10
    for i in range(2 * FLUSH_CHUNK + 10):
        assert await fake.hexists(keys.state(run_id, f"A{i}"), "goals")


async def test_callers_go_first_so_a_backlog_of_sections_does_not_hold_them(run_id: str) -> None:
    """A module step waits for its commands; sections only have to reach Redis: with more
    dirty fields than one transaction holds, the caller is in the first one (here the second
    transaction fails and the caller is not affected; the sections follow later)."""
    fake = fakeredis.FakeAsyncRedis()
    counting: Any = CountingRedis(fake, fail_at=2)
    async with StateStore(counting, run_id, flush_interval=0.01) as store:
        _dirty_agents(store, 2 * FLUSH_CHUNK + 10)
        replies = await store.pipelined(lambda p: p.incrby("ids", 7))
        # answered by the first transaction (at most the failing second one has started),
        # not after the sections' transactions and the retry of the failed one
        assert replies == [7] and counting.pipelines <= 2
        await wait_until(lambda: not store._dirty and store.flushes > 0, 10, "the rest")
    assert store.errors == 1
    for i in range(2 * FLUSH_CHUNK + 10):
        assert await fake.hexists(keys.state(run_id, f"A{i}"), "goals")
