"""The end of a login does not put a player that walked back where it logged in.

flying-squid's login resends the login position when the client first sends a look-only
or on-ground-only packet; mineflayer (>= 1.12) sends neither while it walks, so the resend
came when a bot first turned its head standing still, to dig: it was put back where it had
logged in (the CI run of e144e4c dug a diamond from the square and never picked it up)."""

from __future__ import annotations

import asyncio

import pytest

from bots.server_host import EmbeddedServer
from tests.versions import SWEEP_VERSIONS

from .conftest import run_js

pytestmark = pytest.mark.minecraft


@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_a_walk_before_the_first_look_is_not_undone(server: EmbeddedServer) -> None:
    # a raw client: confirms the login position, walks 3 blocks (position packets only),
    # looks, then digs out of reach; every position the server sent after the walk began,
    # up to the refusal of that dig (which leaves after anything the look made it send)
    out = await asyncio.to_thread(
        run_js, "login_position_check.js", {"port": server.port, "version": server.options.version}
    )
    assert out["walked_to"]["x"] - out["login"]["x"] == 3, out
    assert out["sent_after_walk"] == [], out
