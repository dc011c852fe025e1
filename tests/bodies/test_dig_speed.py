"""Dig times at every supported Minecraft version (Node, no server; issue 34).

minecraft-data 1.21.x gives the blocks that need a stone pickaxe or better a material whose
speed table lists only the wooden tools: mineflayer's dig time for an iron ore with a stone
pickaxe was 4.55 s at 1.21.4 against vanilla's 1.15 s (1.16.5's). ``bots/body/lib/dig_speed``
gives such blocks the pickaxe's speeds; the body applies it to its registry on joining
(``body.js``)."""

from __future__ import annotations

import json
import subprocess

import pytest

from bots.node import BOTS_DIR, node_env, node_executable
from tests.versions import SWEEP_VERSIONS

SCRIPT = """
const { fixDigSpeeds } = require('./body/lib/dig_speed')
const version = process.argv[1]
const out = {}
for (const fixed of [false, true]) {
  const reg = require('prismarine-registry')(version)
  if (fixed) fixDigSpeeds(reg)
  const Block = require('prismarine-block')(reg)
  for (const [block, tool] of PAIRS) {
    const b = Block.fromStateId(reg.blocksByName[block].defaultState, 0)
    const id = tool ? reg.itemsByName[tool].id : null
    out[`${fixed ? 'fixed' : 'raw'} ${block} ${tool}`] = b.digTime(id, false, false, false, [], [])
  }
}
console.log(JSON.stringify(out))
"""
PAIRS = [
    ["iron_ore", "stone_pickaxe"],
    ["iron_ore", "iron_pickaxe"],
    ["gold_ore", "iron_pickaxe"],
    ["diamond_ore", "iron_pickaxe"],
    ["obsidian", "diamond_pickaxe"],
    ["coal_ore", "wooden_pickaxe"],
    ["stone", "wooden_pickaxe"],
    ["oak_log", "stone_axe"],
    ["iron_ore", None],
]


def dig_times(version: str) -> dict[str, float]:
    script = f"const PAIRS = {json.dumps(PAIRS)}\n{SCRIPT}"
    done = subprocess.run(
        [str(node_executable()), "-e", script, version],
        cwd=BOTS_DIR,
        env=node_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(json.loads(done.stdout))


@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
def test_a_pickaxe_digs_an_ore_as_at_1_16_5(mc_version: str) -> None:
    want = {k: v for k, v in dig_times("1.16.5").items() if k.startswith("fixed")}
    got = dig_times(mc_version)
    assert {k: v for k, v in got.items() if k.startswith("fixed")} == want
    assert want["fixed iron_ore stone_pickaxe"] == 1150  # vanilla: hardness 3 x 1.5 / 4


def test_the_fix_is_what_changes_1_21_4() -> None:
    got = dig_times("1.21.4")
    assert got["raw iron_ore stone_pickaxe"] == 4550  # minecraft-data's material as it is
    assert got["fixed iron_ore stone_pickaxe"] == 1150
