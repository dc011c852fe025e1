"""``ShardedBody`` without servers: when and how a body moves to the shard that holds its
destination or its position (fake bodies on fake worlds; the real servers are in
tests/server/test_shard_transfer.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent_runtime.app.shards import EDGE_MARGIN, Shard, ShardedBody, ShardRouter
from agent_runtime.app.world_setup import WorldError, WorldHandle
from agent_runtime.config.loader import parse_config
from agent_runtime.interfaces import Body
from agent_runtime.run.events import EventLog
from agent_runtime.world import BodyEvent, Observation, SkillCall, SkillOutcome, Vec3
from tests.core.helpers import wait_until

BORDER = 50.0


class WalkingBody(Body):
    """go_to walks to (x, z); explore walks ``distance`` blocks east."""

    def __init__(self, name: str, world: FakeWorld, at: Vec3) -> None:
        self.name, self.world, self.position = name, world, at
        self.closed = False
        self.calls: list[SkillCall] = []
        self._events: asyncio.Queue[BodyEvent] = asyncio.Queue()

    async def observe(self) -> Observation:
        return Observation(position=self.position)

    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        self.calls.append(call)
        p = self.position
        if call.skill == "go_to" and "x" in call.args:
            p = Vec3(x=call.args["x"], y=p.y, z=call.args["z"])
        elif call.skill == "explore":
            p = Vec3(x=p.x + call.args["distance"], y=p.y, z=p.z)
        self.position = p
        return SkillOutcome(skill=call.skill, success=True, position=p)

    async def cancel_skill(self) -> None:
        return None

    async def events(self) -> AsyncIterator[BodyEvent]:
        while True:
            yield await self._events.get()

    async def close(self) -> None:
        self.closed = True
        self.world.online.pop(self.name, None)


class FakeAdmin:
    def __init__(self, world: FakeWorld) -> None:
        self.world = world

    async def teleport(self, name: str, x: float, y: float, z: float) -> None:
        self.world.online[name].position = Vec3(x=x, y=y, z=z)

    async def inventory(self, name: str) -> list[dict[str, Any]]:
        return [{"slot": 36, "name": k, "count": n} for k, n in self.world.items.items()]

    async def command(self, command: str) -> None:
        self.world.commands.append(command)


class FakeWorld(WorldHandle):
    def __init__(self, refuse: bool = False) -> None:
        super().__init__(kind="embedded")
        self.admin = FakeAdmin(self)
        self.online: dict[str, WalkingBody] = {}
        self.items: dict[str, int] = {}
        self.commands: list[str] = []
        self.refuse = refuse
        self.gate: asyncio.Event | None = None  # joins wait for it when set

    async def join(self, name: str, spawn: tuple[float, float, float] | None) -> Body:
        if self.refuse:
            raise WorldError(f"{name} could not join")
        if self.gate is not None:
            await self.gate.wait()
        body = WalkingBody(name, self, Vec3(x=0, y=64, z=0))
        self.online[name] = body
        return body


def shard_cfg(east_budget: int = 2) -> Any:
    def region(x_min: float, x_max: float) -> dict[str, float]:
        return {"x_min": x_min, "x_max": x_max, "z_min": -100, "z_max": 100}

    return parse_config(
        {
            "world": {
                "kind": "embedded",
                "shards": [
                    {"name": "west", "region": region(-100, BORDER)},
                    {"name": "east", "region": region(BORDER, 200), "max_bots": east_budget},
                ],
            },
            "agents": [{"name": "Ann"}],
        }
    )


async def ann(
    tmp_path: Any, *, east_budget: int = 2, refuse: bool = False
) -> tuple[ShardedBody, ShardRouter, EventLog]:
    cfg = shard_cfg(east_budget)
    west_world, east_world = FakeWorld(), FakeWorld(refuse=refuse)
    west, east = (
        Shard(s, w) for s, w in zip(cfg.world.shards, (west_world, east_world), strict=True)
    )
    events = EventLog(tmp_path / "events.jsonl")
    router = ShardRouter([west, east], events)
    inner = await west_world.join("Ann", None)
    west.bots.add("Ann")
    return ShardedBody("Ann", router, west, inner), router, events


async def test_go_to_into_the_other_region_walks_to_the_edge_moves_and_walks_on(
    tmp_path: Any,
) -> None:
    body, router, events = await ann(tmp_path)
    west, east = router.shards
    old = body.inner
    assert isinstance(old, WalkingBody)
    west.world.items["bread"] = 3  # type: ignore[attr-defined]
    out = await body.run_skill(SkillCall(skill="go_to", args={"x": 80, "z": 10}))
    assert out.success and out.detail["shard"] == "east" and out.position == Vec3(x=80, y=64, z=10)
    assert old.closed and old.calls[0].args == {"x": BORDER - EDGE_MARGIN, "z": 10}
    new = body.inner
    assert isinstance(new, WalkingBody) and new.world is east.world
    assert new.calls[0].args["x"] == 80  # the original call, on the new server
    assert body.shard is east and router.counts() == {"west": 0, "east": 1}
    assert east.world.commands == ["/give Ann bread 3"]
    assert events.counts["shard_transfer"] == 1 and router.transfers == 1


async def test_a_body_that_wanders_across_moves_after_its_skill_or_observation(
    tmp_path: Any,
) -> None:
    body, router, _ = await ann(tmp_path)
    west, east = router.shards
    await body.run_skill(SkillCall(skill="explore", args={"distance": 60}))  # to x = 60
    assert body.shard is east and body.inner.position.x == 60  # type: ignore[attr-defined]
    inner = body.inner
    assert isinstance(inner, WalkingBody)
    inner.position = Vec3(x=-20, y=64, z=0)  # pushed back west (e.g. a teleport)
    obs = await body.observe()
    assert body.shard is west and obs.position == Vec3(x=-20, y=64, z=0)
    assert router.transfers == 2


async def test_a_full_shard_refuses_the_body_and_it_stays_at_the_edge(tmp_path: Any) -> None:
    body, router, _ = await ann(tmp_path, east_budget=1)
    west, east = router.shards
    east.bots.add("Bob")
    out = await body.run_skill(SkillCall(skill="go_to", args={"x": 80, "z": 0}))
    assert not out.success and out.failure == "target_out_of_reach" and "east" in out.reason
    assert body.shard is west and router.failed_transfers == 1
    assert out.position is not None and out.position.x == BORDER - EDGE_MARGIN


async def test_a_refused_join_brings_the_body_back_home(tmp_path: Any) -> None:
    body, router, _ = await ann(tmp_path, refuse=True)
    west = router.shards[0]
    out = await body.run_skill(SkillCall(skill="go_to", args={"x": 80, "z": 0}))
    assert not out.success and body.shard is west and "Ann" in west.world.online  # type: ignore[attr-defined]
    assert router.counts() == {"west": 1, "east": 0} and router.failed_transfers == 1


@pytest.mark.parametrize(
    ("call", "moves"),
    [({"player": "Bob"}, 0), ({"x": 10, "z": 0}, 0), ({"x": 500, "z": 500}, 1)],
)
async def test_only_a_point_of_another_region_moves_the_body(
    tmp_path: Any, call: dict[str, Any], moves: int
) -> None:
    body, router, _ = await ann(tmp_path)
    await body.run_skill(SkillCall(skill="go_to", args=call))
    assert router.transfers == moves  # a point in no region belongs to the nearest one


async def test_a_cancelled_skill_does_not_leave_the_body_between_servers(tmp_path: Any) -> None:
    body, router, _ = await ann(tmp_path)
    west, east = router.shards
    gate = east.world.gate = asyncio.Event()  # type: ignore[attr-defined]
    task = asyncio.create_task(body.run_skill(SkillCall(skill="go_to", args={"x": 80, "z": 0})))
    online = west.world.online  # type: ignore[attr-defined]
    await wait_until(lambda: "Ann" not in online, 5, "Ann leaving the west server")
    task.cancel()  # the controller interrupts the skill while the body is between servers
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_until(lambda: body.shard is east, 5, "the move finishing")
    assert "Ann" in east.world.online and body.inner is east.world.online["Ann"]  # type: ignore[attr-defined]
    assert router.counts() == {"west": 0, "east": 1}


async def test_an_observation_during_a_skill_does_not_move_the_body(tmp_path: Any) -> None:
    body, router, _ = await ann(tmp_path)
    inner = body.inner
    assert isinstance(inner, WalkingBody)
    inner.position = Vec3(x=70, y=64, z=0)
    body._running = 1  # a skill is in progress (e.g. a long explore)
    await body.observe()
    assert router.transfers == 0
    body._running = 0
    await body.observe()
    assert router.transfers == 1 and body.shard is router.shards[1]


async def test_a_body_outside_every_region_near_its_own_observes_once(tmp_path: Any) -> None:
    """Beyond the regions' outer edge, on the side of its own shard: nothing to move, so the
    observation is not taken a second time."""
    body, router, _ = await ann(tmp_path)
    inner = body.inner
    assert isinstance(inner, WalkingBody)
    inner.position = Vec3(x=-150, y=64, z=0)  # west of the west region, which is the nearest
    calls: list[int] = []
    observe = inner.observe

    async def counted() -> Observation:
        calls.append(1)
        return await observe()

    inner.observe = counted  # type: ignore[method-assign]
    obs = await body.observe()
    assert obs.position == Vec3(x=-150, y=64, z=0) and body.shard is router.shards[0]
    assert len(calls) == 1 and router.transfers == 0
