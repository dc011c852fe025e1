"""The server relays an entity to the players tracking it, as vanilla's entity tracker does
(bots/server/plugins/tracking.js): a player within another's tracking range (48 blocks) is
told of its moves; beyond it, it is told to destroy it and then nothing of its moves; back in
range, it is spawned again where it stands and its moves are relayed again.

Raw clients (tests/server/js/tracking_check.js): a watcher on the village square, a marker
beside it, and a mover the admin API teleports 3, then 70 (three times), then 5 blocks east of
it, then 40 east and 40 south: vanilla 1.17+ tracks within a circle of the range, 1.16 within
a square. A jump out of range tells the watcher nothing of where the mover went, a new viewer
sends the old ones nothing, and the mover is sent its view centre only on a new chunk column."""

from __future__ import annotations

import asyncio
import json
import math
import sys

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
    sys.stderr.write(json.dumps(out) + "\n")
    near, beyond, back = out["near"], out["beyond"], out["back"]
    # within range: the moves are relayed and the watcher ends where the server has the mover
    assert near["moves"] >= 1, out
    assert near["told"] == near["server"], out
    assert near["metadataOnNewViewer"] == 0, out
    # beyond range: nothing of the mover's moves, and it was destroyed for the watcher
    assert beyond["distance"] > 48, out
    assert beyond["movesWhileBeyond"] == 0, out
    assert beyond["spawnsWhileBeyond"] == 0, out
    assert beyond["destroyed"], out
    # a jump out of range: destroyed, and not told where to before
    assert all(j["movesBeforeDestroy"] == [] for j in beyond["jumps"]), out
    # back in range: spawned where it stands, and its moves relayed again
    assert back["spawned"], out
    assert back["spawnedAt"] == back["standsAt"], out
    assert back["relayed"], out
    # the corner: within the range in x and in z, beyond it on a circle
    corner = out["corner"]
    assert max(abs(corner["dx"]), abs(corner["dz"])) <= 48, out
    assert math.hypot(corner["dx"], corner["dz"]) > 48, out
    circle = tuple(int(n) for n in server.options.version.split(".")) >= (1, 17)
    assert corner["tracked"] is not circle, out
    # the view centre only on a new chunk column, not on every move
    assert out["view"]["viewUpdates"] <= out["view"]["columnsCrossed"], out
