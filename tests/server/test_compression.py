"""The network compression threshold (vanilla's ``network-compression-threshold``).

A server on loopback compresses nothing by default (no ``compress`` packet at login, every
frame plain); asked for a threshold, it tells the client that one, as vanilla does. Either
way a plain game client (minecraft-protocol) and a plain mineflayer bot play on it, and a
malformed frame (an empty one, a compressed one that lies about its size) still costs its
sender the connection (the hostile suite's ``malformed_packet``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent_runtime.config.models import DEFAULT_VERSION
from bots.hostile import run_cheats
from bots.server_host import EmbeddedServer
from bots.server_options import ServerOptions

from .conftest import JsBot, run_js

pytestmark = pytest.mark.minecraft


@pytest_asyncio.fixture(params=[None, 256, 64], ids=["default", "256", "64"])
async def compressed(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[int | None, EmbeddedServer]]:
    threshold: int | None = request.param
    options = ServerOptions(seed=1234, version=DEFAULT_VERSION, compression_threshold=threshold)
    async with EmbeddedServer(tmp_path / "world", options, log_path=tmp_path / "server.log") as srv:
        yield threshold, srv


async def test_a_game_client_is_told_the_threshold_and_plays(
    compressed: tuple[int | None, EmbeddedServer],
) -> None:
    threshold, server = compressed
    out = await asyncio.to_thread(
        run_js, "compression_check.js", {"port": server.port, "version": DEFAULT_VERSION}
    )
    if threshold is None:  # loopback: nothing compressed, as with -1
        assert out["compress"] == [], out
        assert out["threshold"] == -2, out  # minecraft-protocol's "never set"
    else:
        assert out["compress"] == [threshold], out
        assert out["threshold"] == threshold, out
    assert out["columns"] >= 9, out  # chunk columns, the largest packets, decoded
    bot = await JsBot(server.port, "Plain", version=DEFAULT_VERSION).start()
    try:
        assert bot.spawn_info, bot.events
    finally:
        await bot.close()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("threshold", [None, 256], ids=["default", "256"])
async def test_malformed_frames_are_refused_with_and_without_compression(
    tmp_path: Path, threshold: int | None
) -> None:
    # an unknown packet id, an empty frame, an inflation bomb (a lying compressed frame with
    # compression on; without, bytes of an unknown packet) and a 16 MiB frame
    options = ServerOptions(version=DEFAULT_VERSION, compression_threshold=threshold)
    async with EmbeddedServer(tmp_path / "world", options, log_path=tmp_path / "server.log") as srv:
        (result,) = await run_cheats(srv, ["malformed_packet"])
    assert result.error is None, result
    assert result.refused, result.detail
