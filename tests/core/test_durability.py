"""The durability promise checked by content: what a digest taken before a fault finds after
it, and each recovery broken on purpose (Redis back empty, one memory deleted, one section
rolled back) caught by the Redis kill of ``piano faults``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from agent_runtime.app.durability import Digest, Entry, compare, intact
from agent_runtime.app.fault_kit import AGENTS
from agent_runtime.app.fault_store import kill_redis
from agent_runtime.app.faults import suite_config
from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from agent_runtime.state import StateStore, keys
from agent_runtime.state.sections import Goals
from tests.core.helpers import wait_until


def _digest(**entries: tuple[str, float]) -> Digest:
    return Digest(
        {("Ann", k.replace("_", ":")): Entry(sha, at) for k, (sha, at) in entries.items()}
    )


def test_compare_tells_kept_rewritten_missing_and_changed_apart() -> None:
    before = _digest(
        section_goals=("a", 100.0),
        section_plan=("b", 100.0),
        section_social=("c", 100.0),
        memory_1=("m1", 0.0),
        memory_2=("m2", 0.0),
    )
    after = _digest(
        section_goals=("a", 100.0),  # the same
        section_plan=("b2", 150.0),  # written again since: kept
        section_social=("c0", 90.0),  # an older version: rolled back
        memory_1=("m1", 0.0),
    )  # memory 2 is gone
    out = compare(before, after, fault_at=200.0, window_s=0.0)
    assert (out["records_before"], out["records_after"]) == (5, 4)
    assert (out["missing"], out["changed"], out["rewritten"]) == (1, 1, 1)
    assert out["examples"] == ["changed Ann section:social", "missing Ann memory:2"]
    assert not intact(out)
    # a section written within the promised window before the fault may be lost
    out = compare(before, after, fault_at=105.0, window_s=10.0)
    assert (out["changed"], out["changed_in_window"], out["missing"]) == (0, 1, 1)
    assert intact(compare(before, before, fault_at=200.0, window_s=0.0))
    assert not intact(compare(Digest(), Digest(), fault_at=200.0, window_s=0.0))  # nothing read


async def test_a_flush_returns_once_the_write_in_flight_is_in_redis(run_id: str) -> None:
    """The digest before a fault is read after a flush: the flush must wait for a write the
    background flusher has taken but not yet sent, and the lag it measures covers that wait."""
    redis = fakeredis.FakeAsyncRedis()
    async with StateStore(redis, run_id) as store:
        gate = asyncio.Event()
        real = store._write_chunk

        async def held(*args: Any) -> int:
            await gate.wait()
            return await real(*args)

        store._write_chunk = held  # type: ignore[method-assign,assignment]
        store.agent("Ann").set("goals", Goals(current="farm"), writer="goal_generation")
        await wait_until(lambda: not store._dirty, 5, "the flusher taking the write")
        asyncio.get_running_loop().call_later(0.3, gate.set)
        await store.flush()
        assert await redis.hget(keys.state(run_id, "Ann"), "goals") is not None
        assert store.write_lag_max >= 0.25  # from the write to Redis's answer


@pytest.mark.services
@pytest.mark.timeout(240)
async def test_the_redis_kill_keeps_every_record_and_each_broken_recovery_is_caught(
    tmp_path: Path,
) -> None:
    cfg = parse_config(suite_config("none"))
    opts = VillageOptions(run_dir=tmp_path / "run", run_id="durable")
    async with Village(cfg, opts) as v:
        clean = (await kill_redis(v, 60)).as_dict()
        assert clean["recovered"], clean
        content = clean["content"]
        assert content["records_before"] >= len(AGENTS) * 5, content
        assert (content["missing"], content["changed"]) == (0, 0), content
        assert clean["data_path"] == {"content_kept": True, "writes_resumed": True}
        promise = clean["promise"]
        assert promise["appendonly"] == "yes" and promise["appendfsync"] == "everysec"
        assert 0 < promise["write_lag_max_ms"] < 5000
        assert promise["lost_at_most_ms"]["kill_redis"] == 0

        memory = (await kill_redis(v, 60, "memory")).as_dict()
        assert not memory["recovered"] and memory["data_path"]["content_kept"] is False
        assert (memory["content"]["missing"], memory["content"]["changed"]) == (1, 0), memory

        section = (await kill_redis(v, 60, "section")).as_dict()
        assert not section["recovered"] and "rolled back section" in section["sabotage"]
        assert (section["content"]["missing"], section["content"]["changed"]) == (0, 1), section

        empty = (await kill_redis(v, 60, "empty")).as_dict()
        assert not empty["recovered"] and empty["data_path"]["content_kept"] is False
        # the memories are gone but those a retrieval rewrote since; a section comes back
        # only when the village writes it again
        gone = empty["content"]
        assert gone["missing_memories"] > gone["memories_before"] / 2 > 0, gone
