"""What two CPU savings of a walking body leave unchanged (no server: each JS check runs the
library's own code beside ours over the generated village).

- ``bots/body/lib/path_keep.js``: a path is kept when a block changes beside it but none of
  its moves changed (mineflayer-pathfinder searched again from scratch for any change within
  a block or two of the path). Paths planned by the pathfinder's A*, then every block in a
  box around each turned to stone or air, one at a time: no change the path is kept through
  leaves a move of it one the search no longer makes, and most changes near a path keep it.
- ``bots/body/body.js``: mineflayer's physics tick asks whether the body's chunk is loaded
  with a full Block of the body's position; a light block answers "no block" exactly where
  mineflayer's read does."""

from __future__ import annotations

import pytest

from agent_runtime.config.models import SUPPORTED_VERSIONS
from tests.server.conftest import run_js


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_a_path_is_kept_only_when_none_of_its_moves_changed(version: str) -> None:
    out = run_js("../../bodies/js/path_keep_check.js", version)
    assert len(out["paths"]) >= 3, out  # paths planned across the village
    assert out["missed"] == [], out  # kept although a move of the path changed
    assert out["near"] > 500, out
    # the stock pathfinder searched again for every one of the near changes
    assert out["kept"] > out["near"] / 3, out


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_the_physics_ticks_loaded_check_answers_as_mineflayers_block_read(version: str) -> None:
    out = run_js("../../bodies/js/loaded_check.js", version)
    assert out["compared"] > 5000 and 0 < out["loaded"] < out["compared"], out
    assert out["differ"] == [], out
