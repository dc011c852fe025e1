"""Items reaching an inventory, many times in a row: hand-overs between bodies and gathering.

Issue 10: a hand-over arrives (counted on the receiver's inventory, through its
``item_picked_up`` event) or fails with a typed ``SkillOutcome.failure``; ``collect``
asked for N gets N, or says how many it got and why. Every wait for an item is on the
receiver's pickup event, with a timeout.
"""

from __future__ import annotations

import asyncio
import time
import typing
from typing import Any

import pytest

from agent_runtime.world import FailureKind, SkillOutcome
from bots.admin import AdminClient
from bots.server_host import EmbeddedServer
from bots.transport import JSPyBridgeTransport, MineflayerBody
from tests.bodies.conftest import connect, give, next_event, place_xyz, run

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]

KINDS = set(typing.get_args(FailureKind))
# a shortfall the gathering test accepts: typed and true (checked case by case below)
SHORTFALLS = {"drops_not_reached", "block_gone", "target_out_of_reach", "target_not_found"}


async def test_give_to_a_player_twenty_times_in_a_row(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    giver = await connect(transport, server, "handing")
    taker = await connect(transport, server, "taking")
    await give(admin, giver, "bread", 20)
    centre = place_xyz(server, "village_centre")
    spots = [(0.0, 0.0), (4.0, 0.0), (0.0, 4.0), (-4.0, 2.0)]
    started = time.monotonic()
    for i in range(20):
        if i % 5 == 0:  # the receiver moves: the giver has to walk to it
            dx, dz = spots[(i // 5) % len(spots)]
            moved = await run(
                taker, "go_to", x=centre["x"] + dx, y=centre["y"], z=centre["z"] + dz, range=1.0
            )
            assert moved.success, moved.reason
        out = await run(giver, "give", player=taker.name, item="bread", count=1)
        assert out.success, f"hand-over {i + 1}: {out.failure}: {out.reason} {out.detail}"
        assert out.failure is None and out.detail["received"] is True, out.detail
        assert out.detail["received_count"] == 1
        assert out.inventory_delta == {"bread": -1}
        picked = await next_event(taker, "item_picked_up", within=5.0)
        assert picked.data == {"item": "bread", "count": 1}
        assert (await taker.observe()).inventory.get("bread") == i + 1
    elapsed = time.monotonic() - started
    server_view = {i["name"]: i["count"] for i in await admin.inventory(taker.name)}
    assert server_view.get("bread") == 20
    assert "bread" not in (await giver.observe()).inventory
    print(f"20 hand-overs in {elapsed:.1f} s")

    # the typed failures: nothing left to give, nobody to give to
    missing = await run(giver, "give", player=taker.name, item="bread")
    assert (missing.success, missing.failure) == (False, "item_missing"), missing
    assert missing.reason == "no bread in inventory"
    await give(admin, giver, "stick", 1)
    nobody = await run(giver, "give", player="Nobody", item="stick")
    assert (nobody.success, nobody.failure) == (False, "target_not_found"), nobody
    assert nobody.reason == "player Nobody is not in sight"


def check_shortfall(out: SkillOutcome, block: str, wanted: int) -> int:
    """A collect that got fewer than ``wanted``: typed, counted, and the count is what arrived."""
    assert not out.success
    assert out.failure in SHORTFALLS, f"{block}: {out.failure}: {out.reason}"
    got = int(out.detail["collected"])
    assert 0 <= got < wanted, out.detail
    assert sum(n for n in out.inventory_delta.values() if n > 0) == got, (out.inventory_delta, got)
    return got


async def gather(body: MineflayerBody, block: str, drops: str, times: int) -> dict[str, Any]:
    """``collect block 3`` ``times`` times; every outcome is the count or a typed shortfall."""
    full = 0
    shortfalls: list[str] = []
    started = time.monotonic()
    for _ in range(times):
        out = await run(body, "collect", block=block, count=3)
        if out.success:
            gained = sum(n for k, n in out.inventory_delta.items() if k.endswith(drops) and n > 0)
            assert gained >= 3, (block, out.inventory_delta, out.detail)
            assert out.detail["collected"] >= 3 and out.failure is None
            full += 1
        else:
            check_shortfall(out, block, 3)
            shortfalls.append(f"{out.failure}: {out.reason}")
    result = {
        "full": full,
        "shortfalls": shortfalls,
        "seconds": round(time.monotonic() - started, 1),
    }
    print(f"collect {block} 3, {times} times: {result}")
    return result


async def gather_at(
    transport: JSPyBridgeTransport,
    server: EmbeddedServer,
    admin: AdminClient,
    place: str,
    block: str,
    drops: str,
    tool: str,
) -> dict[str, Any]:
    """A body of its own walks to ``place`` with ``tool`` and gathers ``block`` 10 times."""
    miner = await connect(transport, server, f"{block}miner")
    await give(admin, miner, tool, 1)
    walked = await run(miner, "go_to", range=3.0, **place_xyz(server, place))
    assert walked.success, f"{block}: {walked.reason}"
    return await gather(miner, block, drops, 10)


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_collect_three_stone_logs_and_dirt_ten_times_each(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    # three bodies gather at once, each at a place of its own (at least 16 blocks apart, so
    # none picks up another's drops): stone on the hills, logs in the forest, dirt from the
    # grass around the village square (grass drops dirt); one after the other they took 193 s
    stone, log, dirt = await asyncio.gather(
        gather_at(transport, server, admin, "hills", "stone", "cobblestone", "iron_pickaxe"),
        gather_at(transport, server, admin, "forest", "log", "_log", "iron_axe"),
        gather_at(transport, server, admin, "village_centre", "dirt", "dirt", "iron_shovel"),
    )
    report = {"stone": stone, "log": log, "dirt": dirt}
    print(report)
    for block, r in report.items():
        # every outcome above was the full count or a checked, typed shortfall; the embedded
        # server delivers every drop, so a shortfall can only be a path not found (a
        # planner timing out on a loaded machine: issue 16), and rare
        assert r["full"] >= 8, f"{block}: {r}"
        assert all(not s.startswith("drops_not_reached") for s in r["shortfalls"]), r
