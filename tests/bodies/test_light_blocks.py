"""The physics and the path search read blocks through ``bots/body/lib/light_blocks.js`` (one
prismarine-block Block per state id, a small object over it per look-up, instead of a Block
per look-up): every field they read is the same as mineflayer's block read gives, over the
generated village at every supported version (no server), and a body walking, sprinting
and jumping through it for 120 ticks follows the same path to the last bit with either."""

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
const { lightBlockAt, lightWorld } = require('./body/lib/light_blocks.js')
const { Physics, PlayerState } = require('prismarine-physics')
const generate = require('./server/generator')({ seed: 0, villageSeed: 0, layout: {}, registry })
const world = new World(null).sync
for (let cx = -2; cx <= 1; cx++) for (let cz = -3; cz <= 0; cz++) world.setColumn(cx, cz, generate(cx, cz))
const bot = { world, registry }
const FIELDS = ['type', 'name', 'stateId', 'metadata', 'boundingBox', 'hardness', 'diggable', 'material', 'transparent']
let compared = 0
const differ = []
for (let x = -20; x <= 20; x += 1) for (let y = 60; y <= 75; y++) for (let z = -30; z <= 0; z += 1) {
  const p = new Vec3(x + 0.3, y + 0.7, z + 0.5)
  const a = world.getBlock(p)
  const b = lightBlockAt(bot, p)
  compared++
  const same = FIELDS.every(f => a[f] === b[f]) && JSON.stringify(a.shapes) === JSON.stringify(b.shapes) &&
    a.position.equals(b.position) && a.isWaterlogged === b.isWaterlogged &&
    JSON.stringify(a.getProperties()) === JSON.stringify(b.getProperties())
  if (!same && differ.length < 5) differ.push(String(p))
}
const outside = lightBlockAt(bot, new Vec3(500, 64, 500))
function walk (blocks) {
  const physics = Physics(registry, blocks)
  const entity = {
    position: new Vec3(0.5, 80, -15.5), velocity: new Vec3(0, 0, 0), onGround: false, isInWater: false,
    isInLava: false, isInWeb: false, isCollidedHorizontally: false, isCollidedVertically: false,
    elytraFlying: false, yaw: 0.7, pitch: 0, effects: {}, attributes: {}
  }
  const fake = { entity, version, jumpTicks: 0, jumpQueued: false, fireworkRocketDuration: 0, inventory: { slots: [] } }
  const control = { forward: true, back: false, left: false, right: false, jump: false, sprint: true, sneak: false }
  const path = []
  for (let tick = 0; tick < 120; tick++) {
    control.jump = tick % 30 > 20
    fake.entity.yaw = 0.7 + tick * 0.02
    physics.simulatePlayer(new PlayerState(fake, control), blocks).apply(fake)
    path.push([fake.entity.position.x, fake.entity.position.y, fake.entity.position.z])
  }
  return path
}
const full = walk({ getBlock: (p) => world.getBlock(p) })
const light = walk(lightWorld(bot))
const moved = Math.hypot(full[119][0] - full[0][0], full[119][2] - full[0][2])
const samePath = JSON.stringify(full) === JSON.stringify(light)
console.log(JSON.stringify({ compared, differ, outside, same_path: samePath, moved }))
"""


@pytest.mark.parametrize("mc_version", SUPPORTED_VERSIONS)
def test_light_blocks_read_as_mineflayers_blocks(mc_version: str) -> None:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, mc_version],
        capture_output=True, text=True, timeout=120, cwd=BOTS_DIR, env=node_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["compared"] > 10000 and out["differ"] == [], out["differ"]
    assert out["outside"] is None  # outside the loaded chunks: no block, as mineflayer says
    assert out["moved"] > 10, out  # it walked through the village
    assert out["same_path"], out
