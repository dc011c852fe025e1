"""The 3D view's blocks at every supported version (bots/body/lib/viewer_blocks.js).

prismarine-viewer has textures and block states up to 1.21.4, maps a version to the last of
its minor line (1.21.11 -> 1.21.4, 1.20.4 -> 1.20.1) and reads the body's block state ids as
that version's: at 1.21.11 chests, tables, furnaces and crops were drawn as other blocks, and
it knows no 26.x line (its page drew nothing). The body now tells the page the assets version
and translates its chunks' block states into it by name and properties; a version the viewer
cannot draw at all is refused with the reason."""

from __future__ import annotations

import pytest

from agent_runtime.config.models import SUPPORTED_VERSIONS
from tests.server.conftest import run_js

CHECK = "../../bodies/js/viewer_blocks_check.js"


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_the_page_reads_every_village_block_by_its_name(version: str) -> None:
    out = run_js(CHECK, {"version": version}, timeout=120)
    assert out["blocks"] > 200_000, out  # 16 generated columns around the town hall
    assert out["wrongTranslated"] == 0, out
    assert out["missing"] == [], out
    if version in ("1.21.11", "26.1"):
        # without the translation the page named other blocks (the ids shifted since 1.21.4)
        assert out["to"] == "1.21.4" and out["wrongRaw"] > 1000, out


def test_a_version_the_viewer_cannot_draw_is_refused_with_the_reason() -> None:
    out = run_js(CHECK, {"assets": ["26.1", "1.21.11", "1.16.5", "1.7.10"]})
    assert out["26.1"] == out["1.21.11"] == "1.21.4", out
    assert out["1.16.5"] == "1.16.4", out
    assert out["1.7.10"]["error"] == (
        "the 3D view cannot draw Minecraft 1.7.10: prismarine-viewer 1.33.0 has textures and"
        " block states for 1.8.8 to 1.21.4 only"
    ), out
