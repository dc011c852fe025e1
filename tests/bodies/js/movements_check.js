'use strict'
// The pathfinder's Movements.getBlock over the generated village: mineflayer-pathfinder's own
// (over bot.blockAt, a full Block per look-up) and bots/body/lib/light_blocks.js's (one
// derived object per state id), every field the pathfinder reads, at every position of a box
// and at offsets below and above. Prints how many were compared and the first that differ.
const path = require('path')
const { req, villageWorld } = require('./village_world')
const [version] = process.argv.slice(2).map(a => JSON.parse(a))
const { Vec3 } = req('vec3')
const { Movements } = req('mineflayer-pathfinder')
const stockGetBlock = Movements.prototype.getBlock
const { registry, world, bot } = villageWorld(version, [-2, 1], [-3, 0])
const movements = new Movements(bot)
require(path.resolve(__dirname, '../../../bots/body/lib/light_blocks.js')).lightMovements()
const FIELDS = ['replaceable', 'canFall', 'safe', 'physical', 'liquid', 'climbable', 'height', 'openable',
  'type', 'name', 'stateId', 'boundingBox', 'metadata', 'hardness', 'diggable', 'transparent', 'material']
let compared = 0
const differ = []
const kinds = new Set()
for (let x = -20; x <= 20; x++) {
  for (let y = 60; y <= 75; y++) {
    for (let z = -30; z <= 0; z++) {
      for (const [dx, dy, dz] of [[0, 0, 0], [1, -1, 0], [0, 1, -1], [0, 2, 0]]) {
        const p = new Vec3(x, y, z)
        const a = stockGetBlock.call(movements, p, dx, dy, dz)
        const b = movements.getBlock(p, dx, dy, dz)
        compared++
        if (a.name) kinds.add(a.name)
        const same = FIELDS.every(f => a[f] === b[f]) && (!a.position || a.position.equals(b.position)) &&
          JSON.stringify(a.shapes) === JSON.stringify(b.shapes)
        if (!same && differ.length < 5) differ.push([String(p), dx, dy, dz, FIELDS.filter(f => a[f] !== b[f])])
      }
    }
  }
}
const outside = [stockGetBlock.call(movements, new Vec3(500, 64, 500), 0, 1, 0), movements.getBlock(new Vec3(500, 64, 500), 0, 1, 0)]
const none = [stockGetBlock.call(movements, null, 0, 1, 0), movements.getBlock(null, 0, 1, 0)]
process.stdout.write(JSON.stringify({
  compared,
  kinds: kinds.size,
  differ,
  outside_same: JSON.stringify(outside[0]) === JSON.stringify(outside[1]),
  none_same: JSON.stringify(none[0]) === JSON.stringify(none[1])
}))
