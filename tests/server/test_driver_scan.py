"""The test driver's block search (``js/scan.js``, used by ``driver.js``'s collect and
find_block) finds what mineflayer's own ``findBlocks`` finds, in the same order, only reading
fewer chunk sections: checked against mineflayer's blocks plugin on made-up worlds, no server
(``js/scan_check.js``), at the oldest version and the default one (chunk sections of one
value from 1.18). Which block a collect takes first decides where the bot walks next."""

from __future__ import annotations

import pytest

from agent_runtime.config.models import DEFAULT_VERSION, SUPPORTED_VERSIONS

from .conftest import run_js


@pytest.mark.parametrize("mc_version", sorted({SUPPORTED_VERSIONS[0], DEFAULT_VERSION}))
def test_the_drivers_block_search_finds_what_mineflayers_does(mc_version: str) -> None:
    got = run_js("scan_check.js", mc_version)
    assert got["version"] == mc_version
    assert got["searches"] == 50 and got["same"] == got["searches"], got
    # the nearest log is two section layers away, one layer away are farther ones: mineflayer
    # takes those (and what the next layer's first section holds), and so does the driver
    assert got["layered"] == ["(-20, 64, 3)", "(-20, 65, 3)"], got
    assert got["ours"] == got["layered"], got
