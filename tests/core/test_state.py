"""Agent State: typed sections, single writers, cached reads, batched writes, reload from Redis."""

from __future__ import annotations

import fakeredis
import pytest
from redis.asyncio import Redis

from agent_runtime.services import RedisServer
from agent_runtime.state import SectionOwnershipError, StateStore, keys
from agent_runtime.state.sections import GoalEntry, Goals, Perception, PersonView, Social
from agent_runtime.world import Observation, Vec3


async def test_round_trip_and_reload_from_fakeredis(run_id: str) -> None:
    server = fakeredis.FakeServer()
    r1 = fakeredis.FakeAsyncRedis(server=server)
    async with StateStore(r1, run_id) as store:
        st = await store.load_agent("Ann")
        st.set(
            "goals",
            Goals(current="farm", kind="farm", history=(GoalEntry(goal="farm", at=1.0),)),
            writer="goal_generation",
        )
        st.set_module_state("memory", {"stored": 7})
        assert st.get("goals", Goals).current == "farm"  # cache, no round trip
    # a new process (new store, new client) reloads everything from Redis
    r2 = fakeredis.FakeAsyncRedis(server=server)
    async with StateStore(r2, run_id) as store2:
        st2 = await store2.load_agent("Ann")
        g = st2.get("goals", Goals)
        assert (g.current, g.kind, len(g.history)) == ("farm", "farm", 1)
        assert st2.module_state("memory") == {"stored": 7}
        assert await r2.sismember(keys.agents(run_id), "Ann")


async def test_single_writer_enforced(run_id: str) -> None:
    async with StateStore(fakeredis.FakeAsyncRedis(), run_id) as store:
        st = store.agent("Ann")
        with pytest.raises(SectionOwnershipError):
            st.set("goals", Goals(current="x"), writer="talking")
        with pytest.raises(TypeError):
            st.set("goals", Social(), writer="goal_generation")


async def test_writes_are_coalesced_into_one_pipeline(run_id: str) -> None:
    r = fakeredis.FakeAsyncRedis()
    store = StateStore(r, run_id, flush_interval=10)  # no background flush during the test
    st = store.agent("Ann")
    for i in range(100):
        st.set(
            "perception",
            Perception(observation=Observation(position=Vec3(x=i, y=0, z=0))),
            writer="perception",
        )
    st2 = store.agent("Bob")
    st2.set(
        "social",
        Social(people={"Ann": PersonView(name="Ann", sentiment=8)}),
        writer="social_awareness",
    )
    written = await store.flush()
    assert written == 2  # 101 writes -> 2 fields
    assert store.ops == 2
    raw = await r.hget(keys.state(run_id, "Ann"), "perception")
    assert raw is not None
    assert Perception.model_validate_json(raw).observation.position == Vec3(x=99, y=0, z=0)


async def test_listeners_fire_on_write(run_id: str) -> None:
    async with StateStore(fakeredis.FakeAsyncRedis(), run_id) as store:
        st = store.agent("Ann")
        seen: list[str] = []
        remove = st.listen("goals", seen.append)
        st.set("goals", Goals(current="a"), writer="goal_generation")
        remove()
        st.set("goals", Goals(current="b"), writer="goal_generation")
        assert seen == ["goals"]


@pytest.mark.services
async def test_real_redis_round_trip_and_aof(redis_server: RedisServer, run_id: str) -> None:
    r = Redis.from_url(redis_server.url)
    try:
        assert (await r.config_get("appendonly"))["appendonly"] == "yes"
        async with StateStore(r, run_id) as store:
            st = await store.load_agent("Ann")
            st.set("goals", Goals(current="mine", kind="mine"), writer="goal_generation")
        async with StateStore(r, run_id) as store:
            assert (await store.load_agent("Ann")).get("goals", Goals).current == "mine"
    finally:
        await r.aclose()
