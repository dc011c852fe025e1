"""The wild beyond the village (issue 18): a world an explorer can live in at any distance
and in every direction, the same for a given seed, generated fast enough for a crowd.

The generator is run directly (``js/wild_check.js``) for determinism, content and time per
chunk; a plain mineflayer client is moved far out on a real server to find it and walk."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from bots.admin import AdminClient
from bots.server_host import EmbeddedServer

from .conftest import BotFactory, JsBot, run_js

# eight directions, 300 to 1000 blocks out
PROBES = [
    [round(r * math.cos(a)), round(r * math.sin(a))]
    for r, a in zip(
        (300, 420, 540, 660, 780, 900, 1000, 350), (k * math.pi / 4 for k in range(8)), strict=True
    )
]


def wild_check(seed: int, probes: list[list[int]], radius: int = 64) -> dict[str, Any]:
    args = {"seed": seed, "layout": {}, "probes": probes, "radius": radius}
    result: dict[str, Any] = run_js("wild_check.js", args, timeout=90)
    return result


@pytest.mark.slow
def test_wild_is_deterministic_and_livable_everywhere() -> None:
    a = wild_check(31, PROBES)
    b = wild_check(31, PROBES[:3])
    c = wild_check(32, PROBES[:3])
    assert [p["digest"] for p in a["probes"][:3]] == [p["digest"] for p in b["probes"]]
    assert all(x["digest"] != y["digest"] for x, y in zip(b["probes"], c["probes"], strict=True))
    for p in a["probes"]:
        # within 64 blocks of every probe: two tree species or more, bare stone, coal and
        # iron ore touching air
        assert len([n for n, k in p["logs"].items() if k >= 5]) >= 2, p
        for block, least in (("stone", 50), ("coal_ore", 5), ("iron_ore", 1)):
            assert p["exposed"].get(block, 0) >= least, (block, p)
    probes = a["probes"]
    assert sum(1 for p in probes if p["water"] > 0) >= len(probes) // 2, probes
    assert sum(1 for p in probes if p["sand"] > 0) >= len(probes) // 2, probes
    assert sum(p["herds"] for p in probes) >= len(probes), probes
    species = {n for p in probes for n in p["logs"]}
    assert {"oak_log", "birch_log", "spruce_log"} <= species


@pytest.mark.minecraft
@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_far_explorer_finds_wood_stone_coal_and_walks(
    server: EmbeddedServer, admin: AdminClient, make_bot: BotFactory
) -> None:
    # one explorer at each far spot, both at once (one bot went to one after the other)
    spots = {"ranger": (210, -980), "rover": (-640, 380)}
    bots = {name: await make_bot(name) for name in spots}
    await asyncio.gather(*(_far_errands(admin, bots[n], n, x, z) for n, (x, z) in spots.items()))


async def _far_errands(admin: AdminClient, bot: JsBot, name: str, x: int, z: int) -> None:
    """``name`` is put down far out at (x, z), finds wood, stone and coal within 64 blocks,
    cuts a log by hand and mines coal ore touching air with a pickaxe, walking to each."""
    await admin.teleport(name, x + 0.5, 100, z + 0.5)
    landed = await bot.call("landed", x=x + 0.5, z=z + 0.5, ms=20000, within=25)
    assert landed["underfoot"] == 9, landed
    await bot.call("wait_columns", near=120, ms=20000, within=25)
    found = {
        block: await bot.call("find_block", name=block, maxDistance=64)
        for block in ("oak_log", "birch_log", "spruce_log", "stone", "coal_ore")
    }
    logs = [n for n in ("oak_log", "birch_log", "spruce_log") if found[n]]
    assert len(logs) >= 2, found
    assert found["stone"] and found["coal_ore"], found
    before = await bot.call("count", item=logs[0])
    await bot.call("collect", block=logs[0], count=1, ms=45000, within=55)
    assert await bot.call("count", item=logs[0]) > before
    await admin.command(f"/give {name} wooden_pickaxe 1")
    assert await bot.call("wait_count", item="wooden_pickaxe", atLeast=1, ms=5000, within=10)
    await bot.call("equip", item="wooden_pickaxe")
    coal = await bot.call("count", item="coal")
    await bot.call("collect", block="coal_ore", count=1, ms=45000, within=55)
    assert await bot.call("count", item="coal") > coal
