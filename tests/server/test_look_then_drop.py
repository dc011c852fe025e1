"""A stack dropped right after a look flies where the player looks now.

flying-squid applies a look after two awaited events, so a drop read right after it was
thrown where the player had looked before: in the skills bench (fresh bodies on one spot,
looking down at the receiver's feet to toss) the stack flew 2 blocks past the receiver, nobody
caught it, and the `give` step failed (the fresh-clone CI run of a808e14)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import pytest

from bots.server_host import EmbeddedServer
from tests.versions import SWEEP_VERSIONS

from .conftest import run_js

pytestmark = pytest.mark.minecraft


@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_a_drop_right_after_a_look_goes_to_the_player_looked_at(
    server: EmbeddedServer,
) -> None:
    assert server.admin_address is not None
    args = {
        "port": server.port,
        "version": server.options.version,
        "admin": urlsplit(server.admin_address).port,
        "token": server.admin_token,
    }
    out = await asyncio.to_thread(run_js, "look_then_drop_check.js", args)
    assert out["receiver"] != out["giver"], out
    assert out["collector"] == out["receiver"], out
