"""Bodies on the embedded server: the contract of the item, container, combat and control
skills (craft, smelt, place, chest, withdraw, give, equip and eat, attack, idle, cancel,
preemption, hurt events).

Each test connects fresh bots (unique names) to one module-scoped server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_runtime.world import SkillCall
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import JSPyBridgeTransport, MineflayerBody
from tests.bodies.conftest import (
    connect,
    give,
    next_event,
    run,
    unique_name,
    wait_until,
    walk_to,
)
from tests.server.conftest import JsBot, counts

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]


async def test_craft_contract(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    crafter = await connect(transport, server, "crafter")
    missing = await run(crafter, "craft", item="crafting_table")
    # the plank kinds tie: the family is named, not the first kind of the recipe list
    assert not missing.success and missing.reason == "missing ingredients: 4 planks"
    unknown = await run(crafter, "craft", item="unobtainium")
    assert not unknown.success and unknown.reason == 'unknown item "unobtainium"'
    raw = await run(crafter, "craft", item="diamond_ore")
    assert not raw.success and raw.reason == "diamond_ore cannot be crafted"

    # far from the town hall's table, with the ingredients of a pickaxe
    forest = server.places["forest"]
    await walk_to(crafter, server, "forest", z=float(forest.z + 10))
    await give(admin, crafter, "oak_planks", 3)
    await give(admin, crafter, "stick", 2)
    no_table = await run(crafter, "craft", item="wooden_pickaxe")
    assert not no_table.success
    assert no_table.reason == "no crafting table within 32 blocks (and none in inventory)"

    # with a table in the inventory, the body places it and crafts there
    await give(admin, crafter, "crafting_table", 1)
    made = await run(crafter, "craft", item="wooden_pickaxe")
    assert made.success, made.reason
    assert made.inventory_delta == {
        "wooden_pickaxe": 1,
        "oak_planks": -3,
        "stick": -2,
        "crafting_table": -1,
    }
    assert made.detail["used_table"] is True
    assert any(b.name == "crafting_table" for b in (await crafter.observe()).blocks)


async def test_planks_from_logs_of_two_kinds(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    """Any planks serve a recipe: 12 planks from 2 oak and 1 birch log are 8 oak and 4 birch
    planks (the skill made one kind a call: "missing ingredients: 1 oak_log")."""
    joiner = await connect(transport, server, "joiner")
    await give(admin, joiner, "oak_log", 2)
    await give(admin, joiner, "birch_log", 1)
    made = await run(joiner, "craft", item="planks", count=12)
    assert made.success, made.reason
    assert made.inventory_delta == {
        "oak_planks": 8,
        "birch_planks": 4,
        "oak_log": -2,
        "birch_log": -1,
    }
    assert made.detail["crafted"] == 12
    # the asked kind first; the other kind only for what its logs cannot make
    await give(admin, joiner, "oak_log", 1)
    await give(admin, joiner, "birch_log", 1)
    oak_first = await run(joiner, "craft", item="oak_planks", count=6)
    assert oak_first.success, oak_first.reason
    assert oak_first.inventory_delta == {
        "oak_planks": 4,
        "birch_planks": 4,
        "oak_log": -1,
        "birch_log": -1,
    }
    short = await run(joiner, "craft", item="planks", count=4)
    assert not short.success and short.reason.startswith("missing ingredients: 1 ")


async def test_smelt_contract(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    smith = await connect(transport, server, "smith")
    dirt = await run(smith, "smelt", item="dirt")
    assert not dirt.success and dirt.reason == "dirt cannot be smelted"
    short = await run(smith, "smelt", item="iron_ore", count=2)
    assert not short.success and short.reason == "missing ingredients: 2 iron_ore"
    await give(admin, smith, "iron_ore", 2)
    no_fuel = await run(smith, "smelt", item="iron_ore", count=2)
    assert not no_fuel.success
    assert no_fuel.reason == "no fuel in inventory (coal, charcoal, planks or logs)"
    await give(admin, smith, "coal", 1)
    forest = server.places["forest"]
    await walk_to(smith, server, "forest", z=float(forest.z + 10))
    far = await run(smith, "smelt", item="iron_ore", count=2)
    assert not far.success and far.reason == "no furnace within 32 blocks (and none in inventory)"
    await walk_to(smith, server, "town_hall")
    smelted = await run(smith, "smelt", item="iron_ore", count=2)
    assert smelted.success, smelted.reason
    assert smelted.inventory_delta == {"iron_ore": -2, "coal": -1, "iron_ingot": 2}


async def test_smelt_takes_out_what_an_earlier_smelt_left(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    """A smelt cut off half way leaves its ore in the furnace; the next smelt of another
    item takes it out first, as a player would (it failed with "destination full")."""
    smith = await connect(transport, server, "smelter")
    await walk_to(smith, server, "town_hall")
    await give(admin, smith, "iron_ore", 3)
    await give(admin, smith, "coal", 2)
    first = asyncio.create_task(run(smith, "smelt", item="iron_ore", count=3))

    async def smelting() -> bool:
        if first.done():
            raise AssertionError(f"the first smelt ended: {first.result()}")
        obs = await smith.observe()
        detail = obs.skill.detail if obs.skill is not None else ""
        return detail.startswith(("smelted 0 of 3", "smelted 1 of 3"))  # ore left inside

    await wait_until(smelting, within=60, what="the first smelt to start")
    await smith.cancel_skill()
    cut = await asyncio.wait_for(first, 15)
    assert not cut.success and cut.cancelled, cut
    await give(admin, smith, "sand", 1)
    glass = await run(smith, "smelt", item="sand", count=1)
    assert glass.success, glass.reason
    assert glass.inventory_delta.get("glass") == 1, glass.inventory_delta
    assert glass.inventory_delta.get("iron_ore", 0) >= 1, glass.inventory_delta  # taken back


async def test_a_furnace_that_cooks_is_not_stuck(tmp_path: Path) -> None:
    """The smelt reports the furnace's cook progress: an item that takes longer than the
    stuck timer (a slow server: 22 smelts of the explorers ended "stuck: no progress for
    20 s while smelted 0 of 1") is not cut off while it cooks. Here the timer is 3 s and
    an item takes 10 s (the vanilla 200 ticks, not the module server's quick 10)."""
    async with (
        EmbeddedServer(tmp_path / "world", log_path=tmp_path / "server.log") as slow,
        AdminClient(str(slow.admin_url)) as slow_admin,
        JSPyBridgeTransport(stuck_seconds=3.0) as quick,
    ):
        smith = await connect(quick, slow, "slowcook")
        await walk_to(smith, slow, "town_hall")
        await give(slow_admin, smith, "iron_ore", 1)
        await give(slow_admin, smith, "coal", 1)
        smelted = await run(smith, "smelt", item="iron_ore", count=1)
        assert smelted.success, smelted.reason
        assert smelted.inventory_delta.get("iron_ingot") == 1, smelted.inventory_delta
        assert smelted.ended_at - smelted.started_at > 5.0  # it did wait for the furnace


async def test_place_contract(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    builder = await connect(transport, server, "builder")
    none = await run(builder, "place", block="cobblestone")
    assert not none.success and none.reason == "no cobblestone in inventory"
    await give(admin, builder, "cobblestone", 2)
    placed = await run(builder, "place", block="cobblestone")
    assert placed.success, placed.reason
    assert placed.inventory_delta == {"cobblestone": -1}
    at = placed.detail["at"]
    again = await run(builder, "place", block="cobblestone", x=at["x"], y=at["y"], z=at["z"])
    assert not again.success
    assert again.reason == f"position ({at['x']}, {at['y']}, {at['z']}) is occupied by cobblestone"
    far = await run(builder, "place", block="cobblestone", x=500.0, y=65.0, z=500.0)
    assert not far.success and far.reason.startswith("target out of reach")


# --- containers, give, equip, eat, attack ------------------------------------------------------


async def test_chest_contract(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    keeper = await connect(transport, server, "keeper")
    forest = server.places["forest"]
    await give(admin, keeper, "stick", 3)
    await walk_to(keeper, server, "forest", z=float(forest.z + 10))
    far = await run(keeper, "deposit", item="stick", count=1)
    assert not far.success and far.reason == "no chest within 32 blocks"
    await walk_to(keeper, server, "town_hall")
    x, y, z = server.community_chests[3]
    none = await run(keeper, "deposit", item="diamond", count=1)
    assert not none.success and none.reason == "no diamond in inventory"
    too_many = await run(keeper, "deposit", item="stick", count=5)
    assert not too_many.success and too_many.reason == "not enough stick: have 3, want to deposit 5"
    wrong = await run(keeper, "deposit", item="stick", x=float(x), y=float(y) + 3, z=float(z))
    assert not wrong.success and wrong.reason.startswith(f"no chest at ({x}, {y + 3}, {z})")
    stored = await run(keeper, "deposit", item="stick", count=3, x=float(x), y=float(y), z=float(z))
    assert stored.success, stored.reason
    assert stored.inventory_delta == {"stick": -3}
    taken = await run(keeper, "withdraw", item="stick", count=2, x=float(x), y=float(y), z=float(z))
    assert taken.success, taken.reason
    assert taken.inventory_delta == {"stick": 2}
    absent = await run(keeper, "withdraw", item="diamond", x=float(x), y=float(y), z=float(z))
    assert not absent.success and absent.reason.startswith("the chest has no diamond")
    assert absent.failure == "target_not_found"  # typed: the bench counts untyped as unknown
    greedy = await run(
        keeper, "withdraw", item="stick", count=9, x=float(x), y=float(y), z=float(z)
    )
    assert not greedy.success and greedy.reason.startswith("the chest has only ")
    assert greedy.failure == "target_not_found"


async def test_withdraw_without_position_finds_the_chest_that_holds_it(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    """The skills bench's chest scenario: four chests side by side, a withdraw naming no chest
    right after a deposit opened the nearest one (empty) instead of the one deposited into."""
    clerk = await connect(transport, server, "clerk")
    await give(admin, clerk, "feather", 3)
    await walk_to(clerk, server, "town_hall")
    first, last = server.community_chests[0], server.community_chests[-1]
    stored = await run(
        clerk,
        "deposit",
        item="feather",
        count=3,
        x=float(first[0]),
        y=float(first[1]),
        z=float(first[2]),
    )
    assert stored.success, stored.reason
    # in front of the last chest: the nearest one holds no feather
    await walk_to(clerk, server, "town_hall", x=last[0] + 0.5, y=float(last[1]), z=last[2] + 1.5)
    taken = await run(clerk, "withdraw", item="feather", count=2)
    assert taken.success, taken.reason
    assert taken.inventory_delta == {"feather": 2}
    assert taken.detail["chest"] == {"x": first[0], "y": first[1], "z": first[2]}
    nowhere = await run(clerk, "withdraw", item="feather", count=5)
    assert not nowhere.success and nowhere.failure == "target_not_found"
    assert nowhere.reason.startswith("no chest within 32 blocks has 5 feather (looked into ")


async def test_withdraw_reads_past_a_stack_on_another_players_cursor(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    """Another player in the middle of a transfer holds the chest's stack on its cursor, so the
    chest shows that slot empty (the skills bench's empty reads: a body read all four chests
    empty while another lifted the stack out of the one that held it). The withdraw reads the
    chest again when its slots change and takes the stack put back."""
    x, y, z = server.community_chests[1]
    holder = JsBot(server.port, unique_name("holder"), version=server.options.version)
    await holder.start()
    try:
        gave = await admin.command(f"/give {holder.username} clay_ball 10")
        assert gave is not None and "clay_ball" in gave, gave
        await holder.call("wait_count", item="clay_ball", atLeast=10)
        stored = await holder.call("chest_deposit", x=x, y=y, z=z, item="clay_ball", count=10)
        assert counts(stored["chest"]) == {"clay_ball": 10}
        assert await holder.call("chest_lift", x=x, y=y, z=z, slot=0) == ["clay_ball", 10]
        # the driver runs its calls in order: this one starts once the stack is on its cursor
        put_back = asyncio.create_task(
            holder.call("chest_put_back_when_opened", within=60.0, slot=0, ms=40000)
        )
        taker = await connect(transport, server, "taker")
        await walk_to(taker, server, "town_hall")
        taken = await run(
            taker, "withdraw", item="clay_ball", count=2, x=float(x), y=float(y), z=float(z)
        )
        assert counts(await asyncio.wait_for(put_back, 30.0)) == {"clay_ball": 10}
        assert taken.success, taken.reason
        assert taken.inventory_delta == {"clay_ball": 2}
        assert counts(await admin.chest(x, y, z)) == {"clay_ball": 8}
    finally:
        await holder.close()


async def test_give_contract(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    giver = await connect(transport, server, "giver")
    taker = await connect(transport, server, "taker")
    nothing = await run(giver, "give", player=taker.name, item="stick")
    assert not nothing.success and nothing.reason == "no stick in inventory"
    assert nothing.failure == "item_missing"
    await give(admin, giver, "stick", 4)
    nobody = await run(giver, "give", player="Nobody", item="stick")
    assert not nobody.success and nobody.reason == "player Nobody is not in sight"
    assert nobody.failure == "target_not_found"
    too_many = await run(giver, "give", player=taker.name, item="stick", count=9)
    assert not too_many.success and too_many.reason == "not enough stick: have 4, want to give 9"
    gave = await run(giver, "give", player=taker.name, item="stick", count=2)
    assert gave.success, gave.reason
    assert gave.inventory_delta == {"stick": -2}
    assert gave.detail["received"] is True and gave.detail["received_count"] == 2, gave.detail
    picked = 0  # mineflayer tosses part of a stack one item at a time: one pickup each
    while picked < 2:
        event = await next_event(taker, "item_picked_up")
        assert event.data["item"] == "stick", event
        picked += int(event.data["count"])
    assert picked == 2
    assert (await taker.observe()).inventory.get("stick", 0) == 2


async def test_equip_and_eat_contract(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    eater = await connect(transport, server, "eater")
    no_sword = await run(eater, "equip", item="iron_sword")
    assert not no_sword.success and no_sword.reason == "no iron_sword in inventory"
    no_food = await run(eater, "eat")
    assert not no_food.success and no_food.reason == "no food in inventory"
    await give(admin, eater, "bread", 2)
    await give(admin, eater, "stick", 1)
    inedible = await run(eater, "eat", item="stick")
    assert not inedible.success and inedible.reason == "stick is not edible"
    full = await run(eater, "eat", item="bread")
    assert not full.success and full.reason == "not hungry (food is 20/20)"
    held = await run(eater, "equip", item="bread")
    assert held.success, held.reason
    assert (await eater.observe()).held_item == "bread"


async def test_attack_contract(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    hunter = await connect(transport, server, "hunter")
    absent = await run(hunter, "attack", target="zombie")
    assert not absent.success and absent.reason == "no zombie within 32 blocks"
    await give(admin, hunter, "wooden_sword", 1)
    pasture = server.places["pasture"]
    await walk_to(hunter, server, "pasture", x=float(pasture.x + 6))
    outcome = await run(hunter, "attack", target="cow", limit=45)
    assert outcome.success, outcome.reason
    assert outcome.detail["weapon"] == "wooden_sword" and outcome.detail["hits"] >= 1


# --- control: idle, cancel, timeout, preemption ---------------------------------------------


async def test_idle_cancel_timeout_and_preemption(
    transport: JSPyBridgeTransport, server: EmbeddedServer
) -> None:
    body = await connect(transport, server, "idler")
    rested = await run(body, "idle", seconds=0.5)
    assert rested.success and rested.ended_at - rested.started_at >= 0.45

    late = await run(body, "idle", limit=1.0, seconds=30)
    assert not late.success and late.timed_out and late.reason.startswith("timed out")

    first = asyncio.create_task(body.run_skill(SkillCall(skill="idle", args={"seconds": 30})))
    await wait_until(lambda: _skill_running(body), what="idle running")
    # chat and whisper run beside the current skill ...
    talk = await run(body, "chat", message="talking while idle")
    assert talk.success
    still = await body.observe()
    assert still.skill is not None and still.skill.skill == "idle" and not first.done()
    # ... any other skill preempts it
    second = await run(body, "idle", seconds=0.2)
    assert second.success
    interrupted = await first
    assert interrupted.cancelled and interrupted.reason == "cancelled: interrupted by idle"

    # cancelling the awaiting task stops the skill in the world too
    task = asyncio.create_task(body.run_skill(SkillCall(skill="idle", args={"seconds": 30})))
    await wait_until(lambda: _skill_running(body), what="idle running")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    async def stopped() -> bool:
        return (await body.observe()).skill is None

    await wait_until(stopped, what="the skill to stop after task cancellation")

    bad = await body.run_skill(SkillCall(skill="collect", args={"count": 2}))
    assert not bad.success and bad.reason.startswith("bad arguments for collect: block")


async def _skill_running(body: MineflayerBody) -> bool:
    return (await body.observe()).skill is not None


async def test_hurt_event_when_attacked_by_another_bot(
    transport: JSPyBridgeTransport, server: EmbeddedServer
) -> None:
    brute = await connect(transport, server, "brute")
    victim = await connect(transport, server, "victim")

    async def sees_victim() -> bool:
        return victim.name in {p.name for p in (await brute.observe()).players}

    await wait_until(sees_victim, what="the brute to see the victim")
    fight = asyncio.create_task(
        brute.run_skill(SkillCall(skill="attack", args={"target": victim.name}, timeout=4))
    )
    try:
        hurt = await next_event(victim, "hurt", within=10)
    except TimeoutError:
        pytest.fail(f"no hurt event; the attack ended with {await fight}")
    assert hurt.data["damage"] > 0 and hurt.data["health"] < 20
    outcome = await fight
    assert outcome.timed_out and outcome.reason.startswith("timed out"), outcome
