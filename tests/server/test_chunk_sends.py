"""A chunk column sent to many players is dumped, serialized and deflated once
(``bots/server/chunk_sends.js``), and every player is still sent what flying-squid sends:
two players sent a column, then the column changed (a block, then its light) and sent again,
get the same bytes from their compressors as with flying-squid's way, at the oldest and the
newest versions whose map_chunk carries the light; the second player's packets come from
what the first one's made (no server)."""

from __future__ import annotations

import pytest

from agent_runtime.config.models import SUPPORTED_VERSIONS
from tests.server.conftest import run_js

_VERSIONS = [v for v in SUPPORTED_VERSIONS if tuple(int(p) for p in v.split(".")[:2]) >= (1, 18)]


@pytest.mark.parametrize("version", [_VERSIONS[0], _VERSIONS[-1]])
def test_a_column_made_once_is_sent_as_flying_squid_sends_it(version: str) -> None:
    stock = run_js("chunk_sends_check.js", version, "stock")
    kept = run_js("chunk_sends_check.js", version, "kept")
    assert kept["a"] == stock["a"] and kept["b"] == stock["b"], (stock, kept)
    assert len(set(stock["a"])) == 3  # the changes changed what is sent
    # each of the three states of the column made once, handed to the second player
    assert kept["stats"] == {
        "dumps": 3,
        "dumpsKept": 3,
        "serialized": 3,
        "serializedKept": 3,
        "deflated": 3,
        "deflatedKept": 3,
    }
