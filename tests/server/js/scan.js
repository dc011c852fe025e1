'use strict'
// The test driver's search for blocks of one kind near a mineflayer bot (driver.js's collect
// and find_block): mineflayer's findBlocks, only faster (see blocksOf). No server needed to
// check it: scan_check.js compares it with mineflayer's own on made-up worlds.
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const { Vec3 } = require(path.join(NM, 'vec3'))
const { sectionMayHold, statesOf } = require(path.resolve(__dirname, '../../../bots/body/lib/scan'))

// mineflayer's findBlocks by block id, with `keep` asked of each block of that id: the same
// blocks in the same order (the chunk sections in layers of growing distance, counted in
// sections, the layer where `count` are found read to its end, then the `count` nearest), but
// a section whose palette lacks the block is skipped. mineflayer reads every position of a
// section of one value (all air, 1.18+), and given a function with useExtraInfo: true builds a
// Block for every position of every section in range until it has `count`: seconds for a rare
// block on a loaded machine
function blocksOf (bot, id, maxDistance, count, keep) {
  const lookup = statesOf(bot.registry, [id])
  const at = bot.entity.position.floored()
  const start = new Vec3(at.x >> 4, Math.floor(at.y / 16), at.z >> 4)
  const apothem = Math.ceil((maxDistance + 8) / 16)
  const layers = Array.from({ length: apothem + 1 }, () => [])
  for (let cx = start.x - apothem; cx <= start.x + apothem; cx++) {
    for (let cz = start.z - apothem; cz <= start.z + apothem; cz++) {
      const column = bot.world.getColumn(cx, cz)
      if (!column) continue
      column.sections.forEach((section, i) => {
        const sy = i + (bot.game.minY >> 4)
        const layer = Math.abs(cx - start.x) + Math.abs(sy - start.y) + Math.abs(cz - start.z)
        if (layer > apothem) return
        if (!sectionMayHold(section, lookup)) return
        layers[layer].push(new Vec3(cx * 16, sy * 16, cz * 16))
      })
    }
  }
  const found = []
  const cursor = new Vec3(0, 0, 0)
  const read = (corner) => {
    for (let x = corner.x; x < corner.x + 16; x++) {
      for (let y = corner.y; y < corner.y + 16; y++) {
        for (let z = corner.z; z < corner.z + 16; z++) {
          cursor.set(x, y, z)
          const state = bot.world.getBlockStateId(cursor)
          if (!lookup[state] || cursor.distanceTo(at) > maxDistance) continue
          const block = bot.blockAt(cursor)
          if (block && keep(block)) found.push(cursor.clone())
        }
      }
    }
  }
  for (let layer = 0; layer < layers.length; layer++) {
    layers[layer].forEach(read)
    if (found.length < count) continue
    // past layer 0, mineflayer reads the next layer's first section (the same height and z,
    // chunk x one layer further west) before it stops
    const first = new Vec3((start.x - layer - 1) * 16, start.y * 16, start.z * 16)
    if (layer > 0) (layers[layer + 1] || []).filter(c => c.equals(first)).forEach(read)
    break
  }
  return found.sort((a, b) => a.distanceTo(at) - b.distanceTo(at)).slice(0, count)
}

module.exports = { blocksOf }
