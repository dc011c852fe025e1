"""The tracker's moves framed once and written to each player's socket as they are
(``bots/server/shared_packets.js`` ``writeFramed``): a player's connection is given the same
bytes in the same order as when every move goes through its serializer, compressor and
framer, with compression and without, between packets the compressor deflates and while the
player's framer holds packets back (then the moves wait their turn in the streams). No
server: one server-side minecraft-protocol client on a socket that hashes what it is given."""

from __future__ import annotations

import pytest

from agent_runtime.config.models import DEFAULT_VERSION, SUPPORTED_VERSIONS
from tests.server.conftest import run_js


@pytest.mark.parametrize("threshold", [256, -1])
@pytest.mark.parametrize("version", [SUPPORTED_VERSIONS[0], DEFAULT_VERSION])
def test_framed_moves_are_the_bytes_and_order_of_the_streams(version: str, threshold: int) -> None:
    stock = run_js("framed_moves_check.js", version, threshold, "stock")
    framed = run_js("framed_moves_check.js", version, threshold, "framed")
    assert framed["sha"] == stock["sha"] and framed["bytes"] == stock["bytes"], (stock, framed)
    assert stock["stats"] == {"framed": 0, "kept": 0, "passed": 0}
    # 306 moves: most framed past the streams, the ones written while the framer held
    # packets back (and until it let them go) by the streams
    assert framed["stats"]["framed"] > 100, framed
    assert framed["stats"]["passed"] > 0, framed
