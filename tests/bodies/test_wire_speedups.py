"""What eight CPU savings of a body process leave unchanged (no server: each JS check runs
the library's own code beside ours on made-up input).

- ``bots/body/lib/light_buffers.js``: chunk light described as arrays of buffers. The server
  writes the same bytes as with minecraft-data's arrays of u8, and a body reads from them the
  same light into its chunk column, at every supported version with that packet shape.
- ``bots/body/lib/lazy_light.js``: a column decodes the light it was sent (a chunk, then an
  update of its light) when first read, to the same values.
- ``bots/body/lib/framing.js``: frames split without an exception per socket read. The same
  frames in the same order as minecraft-protocol's Splitter from the same stream cut at
  random, and from frames read one by one, where the Splitter built an Error for each.
- ``bots/body/lib/look_ahead.js``: the pathfinder's straight-line look-ahead stops after 60
  simulated ticks. Same answers as the pathfinder's own on open ground, up to a wall and
  behind it; behind it, 200 ticks simulated where the pathfinder simulated 340.
- ``bots/body/lib/light_blocks.js`` remembers the column of a bot's last block look-up: after
  an unload, a reload or a replacement of that column it reads the world as it is; the cells
  other entities stand in, indexed by number, cost the path search what they cost it before;
  and the path search's blocks, their derived fields made once per state id, are the
  pathfinder's own, field by field, over the generated village; read again from what it
  remembers of each cell (the path search's and the physics'), they are the world as it is
  after a change, and A* finds the same paths after the same nodes as with the pathfinder's
  own look-up."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.config.models import SUPPORTED_VERSIONS
from tests.server.conftest import run_js

# versions whose light fields are arrays of u8 arrays (1.18 on); 1.16.5 sends light otherwise
_LIGHT_ARRAYS = [
    v for v in SUPPORTED_VERSIONS if tuple(int(p) for p in v.split(".")[:2]) >= (1, 18)
]


def _light(version: str, mode: str) -> Any:
    return run_js("../../bodies/js/light_check.js", version, mode)


@pytest.mark.parametrize("version", _LIGHT_ARRAYS)
def test_light_as_buffers_is_the_same_bytes_and_the_same_light(version: str) -> None:
    stock = _light(version, "stock")
    ours = _light(version, "buffers")
    assert ours["changed"] == 4  # skyLight and blockLight of map_chunk and update_light
    assert ours["buffers"] and not stock["buffers"]
    assert ours["hash"] == stock["hash"], (stock, ours)  # the bytes on the wire
    assert ours["sections"] == stock["sections"] > 0
    assert stock["same"] and ours["same"]  # the body's column has the light the server's had
    assert not stock["pending"] and not ours["pending"]


@pytest.mark.parametrize("version", [_LIGHT_ARRAYS[0], _LIGHT_ARRAYS[-1]])
def test_light_decoded_when_first_read_is_the_same_light(version: str) -> None:
    lazy = _light(version, "buffers,lazy")
    assert lazy["pending"]  # two light packets kept undecoded until the first read
    assert lazy["same"] and lazy["decoded"], lazy  # then the server's latest light, in order


def test_frames_split_without_errors_are_the_same_frames() -> None:
    for seed in (3, 11):
        out = run_js("../../bodies/js/framing_check.js", seed)
        assert out["pieces"] > out["expected"] / 2, out  # many frames cut across pieces
        for how in ("cut", "whole"):
            assert out["stock"][how]["same"], out
            assert out["ours"][how]["same"], out  # every frame, in order, byte for byte
            assert out["ours"][how]["errors"] == 0, out
        # minecraft-protocol's Splitter: one Error per read that ended on a frame's end
        assert out["stock"]["whole"]["errors"] == out["expected"], out


def test_the_look_ahead_gives_the_pathfinders_answers_in_fewer_ticks() -> None:
    version = SUPPORTED_VERSIONS[-1]
    stock = run_js("../../bodies/js/look_ahead_check.js", version, "stock")
    ours = run_js("../../bodies/js/look_ahead_check.js", version, "bounded")
    assert {k: v[0] for k, v in ours.items()} == {k: v[0] for k, v in stock.items()}
    for case in ("open_ground", "two_blocks_east"):
        for name in (case, case + "_sprint"):
            assert ours[name] == stock[name] and ours[name][0] is True, (stock, ours)
    for name in ("behind_the_wall", "behind_the_wall_sprint"):
        assert stock[name] == [False, 340]  # 200 straight, then 7 jumps of 20
        assert ours[name] == [False, 200]  # 60 straight, then the same jumps


def test_the_block_look_up_reads_columns_as_loaded_now() -> None:
    # bots/body/lib/light_blocks.js remembers the last column a bot read from
    out = run_js("../../bodies/js/column_cache_check.js", SUPPORTED_VERSIONS[-1])
    assert out == {
        "loaded": "stone",
        "again": "stone",
        "unloaded": None,
        "reloaded": "dirt",
        "replaced": "oak_log",
    }


def test_entity_costs_of_the_path_search_are_the_pathfinders() -> None:
    # bots/body/lib/light_blocks.js indexes the cells entities stand in by number
    out = run_js("../../bodies/js/entity_cells_check.js")
    assert out["nonzero"] > 50 and out["far"] > 0, out  # near cells and beyond the grid
    assert out["differing"] == 0, out


@pytest.mark.parametrize("version", [SUPPORTED_VERSIONS[0], SUPPORTED_VERSIONS[-1]])
def test_the_path_search_reads_the_blocks_the_pathfinder_read(version: str) -> None:
    # Movements.getBlock: derived fields once per state id (bots/body/lib/light_blocks.js)
    out = run_js("../../bodies/js/movements_check.js", version)
    assert out["compared"] > 80000 and out["kinds"] >= 10, out
    assert out["differ"] == [], out
    assert out["outside_same"] and out["none_same"], out


@pytest.mark.parametrize("version", [SUPPORTED_VERSIONS[0], SUPPORTED_VERSIONS[-1]])
def test_the_path_search_remembers_cells_only_while_the_world_holds_them(version: str) -> None:
    # Movements.getBlock remembers each cell it read until a block or a column changes
    out = run_js("../../bodies/js/cell_cache_check.js", version)
    assert (out["first"], out["again"]) == ("grass_block", "grass_block"), out
    assert out["changed"] == "gold_block", out  # a block set: the next read sees it
    # and a listener of the change that was there first (mineflayer's, which the bot's follow)
    assert out["heard"] == [["gold_block", "gold_block"]], out
    assert out["unloaded"] == "nothing", out  # its column unloaded: no block, as the pathfinder's
    assert out["reloaded"] == "gold_block", out
    # the physics' blocks (lightWorld), the same cell
    assert out["physics"] == ["gold_block", "gold_block", "stone", None, "stone"], out
    assert out["height_after_raise"] == out["height_stock"], out  # one read's change is its own
    assert out["searches"] == 10 and out["placing_paths"] >= 1, out
    assert out["differ"] == [], out
