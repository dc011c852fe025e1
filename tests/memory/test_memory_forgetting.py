"""The bound on a memory stream: routine memories are forgotten, the rest stays."""

from __future__ import annotations

from redis.asyncio import Redis

from modules.memory import HashingEncoder, MemoryStream
from modules.memory.forgetting import LOW_WATER, forgettable
from modules.memory.persistence import stream_prefix
from tests.core.helpers import ManualClock


async def test_a_full_stream_forgets_old_routine_memories_only(
    redis: Redis, clock: ManualClock, hashing: HashingEncoder
) -> None:
    s = await MemoryStream.open(
        redis, run="r", agent="Ann", encoder=hashing, clock=clock, max_records=40, keep_recent=10
    )
    seeds = await s.seed_from_identity(["You are Ann."])
    chat = await s.add("Bob said the bridge is broken", "conversation", importance=2)
    vital = await s.add("I found diamonds near the cave", "observation", importance=9)
    cited = await s.add("I chopped an oak log", "action", importance=1)
    await s.add("Wood matters to me", "reflection", importance=6, evidence=[cited.id])
    for i in range(60):
        clock.t = 1.0 + i * 0.1
        await s.add(f"I walked past tree number {i}", "observation", importance=1)
    n = await s.count()
    assert n <= 40
    kept = {r.id for r in s.all_records()}
    for r in (*seeds, chat, vital, cited):  # never forgotten: seeds, talk, important, cited
        assert r.id in kept
    recent = sorted(s.all_records(), key=lambda r: r.created)[-10:]
    assert any("tree number 59" in r.text for r in recent)
    summaries = [r for r in s.all_records() if r.source == "forgetting"]
    assert summaries and "routine moments" in summaries[-1].text
    assert s.forgotten > 0
    # Redis holds exactly what the process holds, and a reload agrees
    prefix = stream_prefix("r", "Ann")
    assert await redis.hlen(prefix + "records") == n == await redis.hlen(prefix + "emb")
    assert await redis.llen(prefix + "order") == n
    again = await MemoryStream.open(redis, run="r", agent="Ann", encoder=hashing, clock=clock)
    assert {r.id for r in again.all_records()} == kept
    hits = await again.retrieve("diamonds in the cave", k=3)
    assert hits[0].record.id == vital.id


def test_nothing_is_forgotten_below_the_cap_or_when_nothing_is_routine() -> None:
    from modules.memory.records import MemoryRecord

    def rec(i: int, importance: int, kind: str = "observation") -> MemoryRecord:
        return MemoryRecord.model_validate(
            {"id": i + 1, "agent": "A", "text": f"m{i}", "kind": kind, "created": float(i),
             "last_accessed": float(i), "importance": importance}
        )  # fmt: skip

    few = [rec(i, 1) for i in range(10)]
    assert forgettable(few, 10, 0, ()) == []
    important = [rec(i, 8) for i in range(30)]
    assert forgettable(important, 10, 0, ()) == []
    mixed = [rec(i, 1) for i in range(30)]
    gone = forgettable(mixed, 20, 5, ())
    assert len(gone) == 30 - int(20 * LOW_WATER)
    assert [r.id for r in gone] == list(range(1, len(gone) + 1))  # oldest first
