"""A body at rest costs no physics (bots/body/lib/rest.js): standing on the ground with no
control pressed, mineflayer's ticks are not simulated, and it still sends the position
packet a vanilla client sends at least once a second. It wakes when something could move
it: the block under it taken away (it falls), a teleport into the air (it comes down), a
control pressed (it walks), the column under it loaded anew without its ground (it falls)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.node import BOTS_DIR, node_env, node_executable
from bots.server_host import EmbeddedServer

SCRIPT = Path(__file__).parent / "js" / "rest_check.js"

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]


async def _rest_check(server: EmbeddedServer) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        str(node_executable()), str(SCRIPT),
        json.dumps(server.port), json.dumps(server.admin_url),
        cwd=BOTS_DIR, env=node_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), timeout=90)
    assert proc.returncode == 0, err.decode()[-2000:]
    sys.stderr.write(out.decode())
    result: dict[str, Any] = json.loads(out)
    return result


@pytest.mark.timeout(150)
async def test_a_body_at_rest_skips_physics_and_wakes_when_moved(server: EmbeddedServer) -> None:
    out = await _rest_check(server)
    assert out["settled"] is True, out
    standing = out["standing"]
    assert isinstance(standing, dict)
    # 60 ticks standing: almost none simulated
    assert standing["skipped"] + standing["simulated"] == standing["ticks"], out
    assert standing["simulated"] <= 5, out
    # a position packet at least every 20 ticks, as vanilla's client sends standing still
    assert standing["position_packets"] >= 2, out
    assert float(out["fell"]) >= 0.9, out  # the block under it taken away: it fell
    came_down = out["came_down"]
    assert isinstance(came_down, dict)
    assert float(came_down["above_before"]) < 0.5 and came_down["on_ground"] is True, out
    assert float(out["walked"]) >= 1.0, out  # forward and jump pressed for 20 ticks: it walked
    assert float(out["column_fell"]) >= 0.9, out  # its column loaded without its ground: it fell
