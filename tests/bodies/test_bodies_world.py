"""Bodies on the embedded server: observation, events, and the contract of every skill.

Each test connects fresh bots (unique names) to one module-scoped server. Where a
bot must see another, it connects first (flying-squid did not send the tab list to
joining players: bots/server/BUGS_FROM_BODIES.md #1, fixed in the embedded server).
"""

from __future__ import annotations

import asyncio

import pytest

from agent_runtime.world import Observation, SkillCall
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import JSPyBridgeTransport, MineflayerBody
from tests.bodies.conftest import connect, give, next_event, place_xyz, run, wait_until, walk_to

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]


# --- the "done when" scenario ----------------------------------------------------------


async def test_two_agents_observe_chat_collect_craft_and_deposit(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    alice = await connect(transport, server, "alice")
    bob = await connect(transport, server, "bob")

    for body in (alice, bob):
        obs = await body.observe()
        assert obs.connected and obs.position is not None
        assert obs.position.distance_to(obs.position.model_copy(update={"x": 0.0, "z": 0.0})) < 16

    said = await run(alice, "chat", message="hello bob, let us build")
    assert said.success, said.reason
    heard = await next_event(bob, "chat", where=lambda e: e.data["sender"] == alice.name)
    assert heard.data["message"] == "hello bob, let us build"

    chests = server.community_chests

    async def work(body: MineflayerBody, chest: tuple[int, int, int], dx: float) -> None:
        # different edges of the forest, so that the two do not queue for the same tree
        await walk_to(body, server, "forest", x=server.places["forest"].x + dx)
        got = await run(body, "collect", block="log", count=1)
        assert got.success, f"{body.name}: {got.reason}"
        assert sum(v for k, v in got.inventory_delta.items() if k.endswith("_log")) >= 1
        planks = await run(body, "craft", item="planks", count=4)
        assert planks.success, f"{body.name}: {planks.reason}"
        assert sum(v for k, v in planks.inventory_delta.items() if k.endswith("_planks")) == 4
        table = await run(body, "craft", item="crafting_table")
        assert table.success, f"{body.name}: {table.reason}"
        assert table.inventory_delta.get("crafting_table") == 1
        x, y, z = chest
        stored = await run(body, "deposit", item="crafting_table", count=1, x=x, y=y, z=z)
        assert stored.success, f"{body.name}: {stored.reason}"
        # the delta is the inventory before vs after: a sapling picked up on the way counts too
        assert stored.inventory_delta.get("crafting_table") == -1
        contents = await admin.chest(x, y, z)
        assert any(i["name"] == "crafting_table" for i in contents)

    async with asyncio.timeout(55):
        await asyncio.gather(work(alice, chests[0], -6.0), work(bob, chests[1], 6.0))


# --- observation ------------------------------------------------------------------------


async def test_observation_fields(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    watcher = await connect(transport, server, "watch")
    other = await connect(transport, server, "other")
    await walk_to(watcher, server, "town_hall")
    await give(admin, watcher, "wooden_sword", 1)
    equipped = await run(watcher, "equip", item="wooden_sword")
    assert equipped.success, equipped.reason
    said = await run(other, "chat", message="can you see me?")
    assert said.success

    async def snapshot_with_chat_and_player() -> Observation | None:
        obs = await watcher.observe()
        seen = {p.name for p in obs.players}
        return obs if obs.chat and other.name in seen else None

    obs = await wait_until(
        snapshot_with_chat_and_player, what="chat and the other bot in the observation"
    )
    assert obs.connected and obs.position is not None
    assert obs.health == 20 and obs.food == 20
    assert 0 <= obs.time_of_day < 24000
    assert obs.inventory.get("wooden_sword") == 1
    assert obs.held_item == "wooden_sword"
    assert [c.message for c in obs.chat if c.sender == other.name] == ["can you see me?"]
    seen = {p.name: p for p in obs.players}
    assert other.name in seen
    assert seen[other.name].distance == pytest.approx(
        obs.position.distance_to(seen[other.name].position), abs=0.6
    )
    names = {b.name for b in obs.blocks}
    assert {"chest", "crafting_table", "furnace"} <= names, names
    for block in obs.blocks:
        assert block.distance <= 17
    assert list(obs.blocks) == sorted(obs.blocks, key=lambda b: b.distance)

    # current skill and its progress
    idle = asyncio.create_task(watcher.run_skill(SkillCall(skill="idle", args={"seconds": 30})))

    async def running() -> Observation | None:
        o = await watcher.observe()
        return o if o.skill is not None else None

    during = await wait_until(running, what="skill in the observation")
    assert during.skill is not None and during.skill.skill == "idle"
    await watcher.cancel_skill()
    outcome = await idle
    assert outcome.cancelled and not outcome.success


async def test_entities_are_observed(
    transport: JSPyBridgeTransport, server: EmbeddedServer
) -> None:
    body = await connect(transport, server, "herder")
    pasture = server.places["pasture"]
    await walk_to(body, server, "pasture", x=float(pasture.x + 6))
    obs = await body.observe()
    kinds = {e.kind for e in obs.entities}
    assert kinds & {"cow", "sheep", "pig", "chicken"}, kinds
    assert all(e.distance <= 32 for e in obs.entities)


# --- events -------------------------------------------------------------------------------


async def test_chat_and_whisper_between_two_bots(
    transport: JSPyBridgeTransport, server: EmbeddedServer
) -> None:
    ann = await connect(transport, server, "ann")
    ben = await connect(transport, server, "ben")
    joined = await run(ann, "chat", message="public hello")
    assert joined.success
    event = await next_event(ben, "chat", where=lambda e: e.data["sender"] == ann.name)
    assert event.bot == ben.name and event.data["message"] == "public hello"

    whispered = await run(ben, "whisper", player=ann.name, message="a secret")
    assert whispered.success, whispered.reason
    secret = await next_event(ann, "whisper", where=lambda e: e.data["sender"] == ben.name)
    assert secret.data["message"] == "a secret"
    obs = await ann.observe()
    assert any(c.whisper and c.message == "a secret" for c in obs.chat)


async def test_player_joined_and_left_events(
    transport: JSPyBridgeTransport, server: EmbeddedServer
) -> None:
    first = await connect(transport, server, "first")
    await next_event(first, "spawn")
    second = await connect(transport, server, "second")
    joined = await next_event(
        first, "player_joined", where=lambda e: e.data["player"] == second.name
    )
    assert joined.bot == first.name
    await second.close()
    await next_event(first, "player_left", where=lambda e: e.data["player"] == second.name)


# --- movement -----------------------------------------------------------------------------


async def test_go_to_contract(transport: JSPyBridgeTransport, server: EmbeddedServer) -> None:
    walker = await connect(transport, server, "walker")
    target = await connect(transport, server, "target")
    farm = place_xyz(server, "farm")
    ok = await run(walker, "go_to", x=farm["x"], z=farm["z"], range=3.0)
    assert ok.success, ok.reason
    assert ok.position is not None
    assert abs(ok.position.x - farm["x"]) <= 3.5 and abs(ok.position.z - farm["z"]) <= 3.5

    to_player = await run(walker, "go_to", player=target.name)
    assert to_player.success, to_player.reason
    there = (await target.observe()).position
    assert there is not None and to_player.position is not None
    assert to_player.position.distance_to(there) <= 3.5

    # a spot in the air: the walk fails with one of the outcomes move.js documents for a walk
    # that cannot finish (no_path: the search ran out of places; timed_out: out of the time it
    # is given, what a busy CPU gives; blocked: stuck on the way), the reason naming the
    # target and ending with the blocks left (fresh-clone CIs of 2800b39 and be9c296, under
    # load, failed here expecting no_path alone)
    no_path = await run(walker, "go_to", x=0.0, y=150.0, z=0.0)
    walk = no_path.detail["walk"]
    left = walk["blocks_left"]
    assert not no_path.success and walk["outcome"] in ("no_path", "timed_out", "blocked"), walk
    assert "(0, 150, 0)" in no_path.reason, no_path.reason
    assert no_path.reason.endswith(f": {left} blocks left") and left > 0, no_path.reason
    nobody = await run(walker, "go_to", player="Nobody")
    assert not nobody.success and nobody.reason == "player Nobody is not in sight"
    assert nobody.failure == "target_not_found"
    nothing = await run(walker, "go_to")
    assert not nothing.success and "needs either x and z" in nothing.reason


async def test_follow_and_explore(transport: JSPyBridgeTransport, server: EmbeddedServer) -> None:
    follower = await connect(transport, server, "follower")
    leader = await connect(transport, server, "leader")
    farm = place_xyz(server, "farm")
    following = asyncio.create_task(
        follower.run_skill(SkillCall(skill="follow", args={"player": leader.name, "duration": 6}))
    )
    walked = await run(leader, "go_to", x=farm["x"], z=farm["z"], range=3.0)
    assert walked.success, walked.reason
    outcome = await following
    assert outcome.success, outcome.reason
    end = (await leader.observe()).position
    assert end is not None and outcome.position is not None
    assert outcome.position.distance_to(end) <= 6

    lost = await run(follower, "follow", player="Nobody")
    assert not lost.success and lost.reason == "player Nobody is not in sight"

    start = (await follower.observe()).position
    explored = await run(follower, "explore", distance=12.0)
    assert explored.success, explored.reason
    assert start is not None and explored.position is not None
    assert explored.position.distance_to(start) >= 5


# --- collect / craft / smelt / place -----------------------------------------------------------


async def test_collect_failures(transport: JSPyBridgeTransport, server: EmbeddedServer) -> None:
    miner = await connect(transport, server, "miner")
    unknown = await run(miner, "collect", block="unobtainium")
    assert not unknown.success and unknown.reason == 'unknown block "unobtainium"'
    absent = await run(miner, "collect", block="diamond_block")
    assert not absent.success and absent.reason == "no diamond_block in sight within 64 blocks"
    assert absent.failure == "target_not_found" and absent.detail["collected"] == 0
    await walk_to(miner, server, "cave")
    no_tool = await run(miner, "collect", block="iron_ore")
    assert not no_tool.success
    assert no_tool.reason.startswith("missing tool: iron_ore needs one of "), no_tool.reason
    assert "stone_pickaxe" in no_tool.reason
    assert no_tool.failure == "tool_missing"
