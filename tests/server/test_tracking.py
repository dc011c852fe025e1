"""The server relays an entity to the players tracking it, as vanilla's entity tracker does
(bots/server/plugins/tracking.js): a player within another's tracking range (48 blocks) is
told of its moves; beyond it, it is told to destroy it and then nothing of its moves; back in
range, it is spawned again where it stands and its moves are relayed again.

Raw clients (tests/server/js/tracking_check.js): a watcher on the village square and a mover
the admin API teleports 3, then 70, then 5 blocks east of it."""

from __future__ import annotations

import asyncio

import pytest

from bots.server_host import EmbeddedServer
from tests.versions import SWEEP_VERSIONS

from .conftest import run_js

pytestmark = pytest.mark.minecraft


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_a_player_beyond_the_tracking_range_is_told_nothing(
    server: EmbeddedServer,
) -> None:
    settings = {
        "port": server.port,
        "version": server.options.version,
        "adminPort": server.info.get("adminPort"),
        "adminTokenFile": str(server.admin_token_file.resolve()),
    }
    out = await asyncio.to_thread(run_js, "tracking_check.js", settings, timeout=90)
    near, beyond, back = out["near"], out["beyond"], out["back"]
    # within range: the moves are relayed and the watcher ends where the server has the mover
    assert near["moves"] >= 1, out
    assert near["told"] == near["server"], out
    # beyond range: nothing of the mover's moves, and it was destroyed for the watcher
    assert beyond["distance"] > 48, out
    assert beyond["movesWhileBeyond"] == 0, out
    assert beyond["spawnsWhileBeyond"] == 0, out
    assert beyond["destroyed"], out
    # back in range: spawned where it stands, and its moves relayed again
    assert back["spawned"], out
    assert back["spawnedAt"] == back["standsAt"], out
    assert back["relayed"], out
