"""A chunk section's fluid count kept from a table of state ids (``bots/server/fluid_counts.js``)
instead of a prismarine-block Block built for the old and the new state of every block set:
25 village columns around the lake are the same bytes with the same fluid counts as with
prismarine-chunk's own counting, at 26.1 (whose sections count fluids) and at 1.21.4 (whose
do not). No server."""

from __future__ import annotations

import pytest

from tests.server.conftest import run_js


@pytest.mark.parametrize("version", ["26.1", "1.21.4"])
def test_kept_fluid_counts_are_prismarine_chunks(version: str) -> None:
    stock = run_js("fluid_counts_check.js", version, "stock")
    kept = run_js("fluid_counts_check.js", version, "kept")
    assert kept["sha"] == stock["sha"], (stock, kept)
    assert kept["fluidCount"] == stock["fluidCount"], (stock, kept)
    assert kept["stats"]["sectionsPatched"] == 1
    if version == "26.1":
        assert stock["fluidCount"] > 0  # the lake's water is counted
