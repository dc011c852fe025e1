"""The body's scan for notable blocks reads the chunks of every supported version (no server).

``scanNotable`` (``bots/body/plugins/observe.js``) reads state ids from chunk sections
directly. From 1.18 a section's data is a palette container whose ``get`` already answers
the state id; the scan looked that id up as a palette index, and at 1.21.4 an observation
named chests and furnaces where there were none and never the town hall's crafting table
(``tests/bodies/test_bodies_world.py::test_observation_fields`` failed at 1.21.4).
Here the scan must find exactly the notable blocks a block-by-block read finds, on the
generated village around the town hall.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from bots.node import BOTS_DIR, node_env, node_executable
from tests.versions import SWEEP_VERSIONS

_SCRIPT = """
const [version] = process.argv.slice(1)
const { Vec3 } = require('vec3')
const registry = require('prismarine-registry')(version)
const World = require('prismarine-world')(registry)
const { scanNotable, isNotable } = require('./body/plugins/observe.js')
const generate = require('./server/generator')({ seed: 0, villageSeed: 0, layout: {}, registry })
const world = new World(null).sync
for (let cx = -2; cx <= 1; cx++) for (let cz = -3; cz <= 0; cz++) world.setColumn(cx, cz, generate(cx, cz))
const names = []
const lookup = new Uint16Array(Math.max(...Object.values(registry.blocks).map(b => b.maxStateId ?? b.id)) + 1)
for (const b of Object.values(registry.blocks)) {
  if (!isNotable(b.name)) continue
  names.push(b.name)
  for (let s = b.minStateId ?? b.id; s <= (b.maxStateId ?? b.id); s++) lookup[s] = names.length
}
const tall = registry.version['>=']('1.18')
const bot = { world, game: tall ? { minY: -64, height: 384 } : { minY: 0, height: 256 } }
const centre = new Vec3(0.5, 65, -15.5)
const radius = 12
const scanned = scanNotable(bot, centre, radius, { lookup, names }).map(f => `${f.name} ${f.p}`)
const read = []
for (let x = -12; x <= 13; x++) for (let y = 53; y <= 77; y++) for (let z = -28; z <= -3; z++) {
  const p = new Vec3(x, y, z)
  const d = p.offset(0.5, 0.5, 0.5).minus(centre)
  if (d.x * d.x + d.y * d.y + d.z * d.z > radius * radius) continue
  const name = world.getBlock(p).name
  if (isNotable(name)) read.push(`${name} ${p}`)
}
console.log(JSON.stringify({ scanned: scanned.sort(), read: read.sort() }))
"""


@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
def test_the_scan_finds_what_a_block_by_block_read_finds(mc_version: str) -> None:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, mc_version],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=BOTS_DIR,
        env=node_env(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["read"] and any(s.startswith("crafting_table ") for s in out["read"]), out["read"]
    assert out["scanned"] == out["read"]
