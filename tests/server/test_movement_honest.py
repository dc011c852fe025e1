"""Honest moves are never refused by the movement checks (bots/server/plugins/movement.js).

A raw client sends what a player's game sends: a catch-up after its loop stalled 2 s (40
ticks of sprinting, 4 packets a turn), a jump, a fall of 20 blocks whose last packets arrive
in one burst, two moves past a pillar's corner whose straight line clips the corner but
which an axis-by-axis collision passes (vanilla's order, and mineflayer's). None of them is
refused and the server ends where the client did. One move of 11 blocks with the whole
budget is refused as moved too quickly (the per-packet bound, which the budget alone would
let through) and the player stays put. The cheats that the same checks refuse are in the
hostile-client suite (test_hostile_clients.py)."""

from __future__ import annotations

import asyncio

import pytest

from bots.server_host import EmbeddedServer
from tests.versions import SWEEP_VERSIONS

from .conftest import run_js

pytestmark = pytest.mark.minecraft


@pytest.mark.timeout(180)
@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_honest_moves_are_not_refused(server: EmbeddedServer) -> None:
    settings = {
        "port": server.port,
        "version": server.options.version,
        "adminPort": server.info.get("adminPort"),
        "adminTokenFile": str(server.admin_token_file.resolve()),
    }
    out = await asyncio.to_thread(run_js, "movement_honest_check.js", settings, timeout=120)
    assert out["refusals"] == {
        "catch_up": 0,
        "jump": 0,
        "fall": 0,
        "corner": 0,
        "corner_jump": 0,
        "bound": 1,
    }, out
    assert out["kinds"]["bound"] == {"moved_too_quickly": 1}, out
    for name, (claimed, server_at, kicked) in out["ended"].items():
        assert kicked is None, (name, out)
        assert abs(claimed["x"] - server_at["x"]) < 0.01, (name, out)
        assert abs(claimed["y"] - server_at["y"]) < 0.01, (name, out)
        assert abs(claimed["z"] - server_at["z"]) < 0.01, (name, out)
