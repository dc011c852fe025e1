"""A move the entity tracker tells many players is serialized once
(``bots/server/shared_packets.js``; ``plugins/tracking.js`` hands the players told the same
the same packet object): three players' compressors put out the same bytes as with a packet
object each, a player told another step gets its own packet, and of 12 packets 5 were
serialized (no server)."""

from __future__ import annotations

import pytest

from agent_runtime.config.models import SUPPORTED_VERSIONS
from tests.server.conftest import run_js


@pytest.mark.parametrize("version", [SUPPORTED_VERSIONS[0], SUPPORTED_VERSIONS[-1]])
def test_a_move_serialized_once_is_the_bytes_each_player_was_sent(version: str) -> None:
    stock = run_js("shared_moves_check.js", version, "stock")
    shared = run_js("shared_moves_check.js", version, "shared")
    assert shared["out"] == stock["out"], (stock, shared)
    first, second, third = stock["out"]
    assert first == second and third[0] != first[0] and third[1:] == first[1:]
    assert stock["stats"] == {"serialized": 0, "kept": 0}
    # 4 updates to 3 players, the third's first step its own: 5 made, 7 handed on
    assert shared["stats"] == {"serialized": 5, "kept": 7}
