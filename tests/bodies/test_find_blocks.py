"""The bodies' block search by state ids (``bots/body/lib/scan.js``: ``findBlockPositions``,
which ``collect``, ``craft`` and the chest skills reach through ``bot.findBlocks``) finds what
a block-by-block read finds, on the generated village at every supported version (no
server): every block of the kinds asked for within the distance, nearest first, and with a
count the nearest ones. mineflayer's own findBlocks built a Block object per position
searched; in the 50-agent village one body process spent 58% of its CPU there, in runs of
12-16 s without a break."""

from __future__ import annotations

import json
import subprocess

import pytest

from agent_runtime.config.models import SUPPORTED_VERSIONS
from bots.node import BOTS_DIR, node_env, node_executable

_SCRIPT = """
const [version] = process.argv.slice(1)
const { Vec3 } = require('vec3')
const registry = require('prismarine-registry')(version)
const World = require('prismarine-world')(registry)
const { findBlockPositions } = require('./body/lib/scan.js')
const generate = require('./server/generator')({ seed: 0, villageSeed: 0, layout: {}, registry })
const world = new World(null).sync
for (let cx = -3; cx <= 2; cx++) for (let cz = -4; cz <= 1; cz++) world.setColumn(cx, cz, generate(cx, cz))
const tall = registry.version['>=']('1.18')
const feet = new Vec3(0.5, 65, -15.5)
const game = tall ? { minY: -64, height: 384 } : { minY: 0, height: 256 }
const bot = { world, registry, entity: { position: feet }, game }
const at = feet.floored()
const out = {}
const kinds = [['stone'], ['oak_log', 'birch_log', 'spruce_log'], ['crafting_table'], ['chest'], ['diamond_block']]
for (const names of kinds) {
  const ids = names.filter(n => registry.blocksByName[n]).map(n => registry.blocksByName[n].id)
  const maxDistance = 30
  const read = []
  for (let x = at.x - maxDistance; x <= at.x + maxDistance; x++) {
    for (let y = at.y - maxDistance; y <= at.y + maxDistance; y++) {
      for (let z = at.z - maxDistance; z <= at.z + maxDistance; z++) {
        const p = new Vec3(x, y, z)
        if (p.distanceTo(at) > maxDistance) continue
        const b = world.getBlock(p)
        if (b && ids.includes(b.type)) read.push(p)
      }
    }
  }
  const dist = (p) => p.distanceTo(at)
  read.sort((a, b) => dist(a) - dist(b))
  const all = findBlockPositions(bot, { matching: ids, maxDistance, count: 1e6 })
  const five = findBlockPositions(bot, { matching: ids.length === 1 ? ids[0] : ids, maxDistance, count: 5 })
  out[names[0]] = {
    read: read.map(String).sort(),
    all: all.map(String).sort(),
    all_sorted: all.every((p, i) => i === 0 || dist(all[i - 1]) <= dist(p)),
    five: five.map(dist),
    nearest_five: read.slice(0, 5).map(dist)
  }
}
console.log(JSON.stringify(out))
"""


@pytest.mark.parametrize("mc_version", SUPPORTED_VERSIONS)
def test_the_search_finds_what_a_block_by_block_read_finds(mc_version: str) -> None:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, mc_version],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=BOTS_DIR,
        env=node_env(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert len(out["stone"]["read"]) > 1000 and out["oak_log"]["read"], out["oak_log"]
    assert out["crafting_table"]["read"], "the town hall's crafting table"
    assert out["diamond_block"]["read"] == [] and out["diamond_block"]["all"] == []
    for kind, found in out.items():
        assert found["all"] == found["read"], kind
        assert found["all_sorted"], kind
        assert found["five"] == found["nearest_five"], kind
