"""Memory writes of many agents join the state store's per-tick transaction: one round trip
for all of them, ids allocated in process, everything readable after a reload."""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from agent_runtime.state.store import StateStore
from modules.memory import HashingEncoder, MemoryStream


class CountingRedis:
    """The fake Redis, counting the transactions sent to it."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self.pipelines = 0

    def pipeline(self, *a: Any, **kw: Any) -> Pipeline:
        self.pipelines += 1
        return self._redis.pipeline(*a, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._redis, name)


async def _open(redis: Any, agent: str, clock: Any, store: StateStore | None) -> MemoryStream:
    return await MemoryStream.open(
        redis,
        run="run1",
        agent=agent,
        encoder=HashingEncoder(),
        clock=clock,
        writer=store.pipelined if store is not None else None,
    )


async def test_twenty_agents_store_their_memories_in_one_round_trip(
    redis: Redis, clock: Any
) -> None:
    counting: Any = CountingRedis(redis)
    async with StateStore(counting, "run1", flush_interval=0.05) as store:
        streams = [await _open(counting, f"A{i}", clock, store) for i in range(20)]
        before, flushes = counting.pipelines, store.flushes
        records = await asyncio.gather(
            *(s.add(f"A{i} saw a fox by the river", "observation") for i, s in enumerate(streams))
        )
        assert counting.pipelines - before == 1  # one transaction for all twenty agents
        assert store.flushes - flushes == 1
        # each agent's ids continue its own counter
        assert {r.id for r in records} == {1}
        more = await streams[3].add_many([])
        assert more == []
        again = await streams[3].add("A3 saw a second fox", "observation", importance=3)
        assert again.id == 2
    for i in range(20):  # a restarted process reads back exactly what was written
        reloaded = await _open(redis, f"A{i}", clock, None)
        got = [r.text for r in reloaded.all_records()]
        assert got[0] == f"A{i} saw a fox by the river"
        assert int(await redis.get(reloaded.keys["seq"]) or 0) == (2 if i == 3 else 1)
        nxt = await reloaded.add("after the restart", "observation", importance=2)
        assert nxt.id == (3 if i == 3 else 2)  # never an id twice


async def test_pipelined_replies_in_order_and_a_callers_bug_fails_only_that_caller(
    redis: Redis,
) -> None:
    async with StateStore(redis, "run1", flush_interval=0.05) as store:

        def bad(pipe: Pipeline) -> None:
            pipe.set("x", 1)
            raise ValueError("a bug in one caller")

        def set_and_get(pipe: Pipeline) -> None:
            pipe.set("k1", "v1")
            pipe.get("k1")

        def add_five(pipe: Pipeline) -> None:
            pipe.incrby("n", 5)

        replies: list[Any] = await asyncio.gather(
            store.pipelined(set_and_get),
            store.pipelined(bad),
            store.pipelined(add_five),
            return_exceptions=True,
        )
        a, b, c = replies
        assert a == [True, b"v1"]
        assert isinstance(b, ValueError)
        assert c == [5]
        assert await redis.get("x") is None  # the failing caller's commands were not sent
    # after the store closed, commands run at once in their own transaction
    assert await store.pipelined(lambda p: p.incrby("n", 1)) == [6]
