'use strict'
// The path search's entity costs (mineflayer-pathfinder's Movements.getNumEntitiesAt over its
// collision index) with its own string-keyed index and with bots/body/lib/light_blocks.js's
// numeric one, for the same entities and the same cells asked. Prints the counts that differ.
const path = require('path')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const { Movements } = req('mineflayer-pathfinder')
const stock = {
  clear: Movements.prototype.clearCollisionIndex,
  update: Movements.prototype.updateCollisionIndex,
  get: Movements.prototype.getNumEntitiesAt
}
require(path.resolve(__dirname, '../../../bots/body/lib/light_blocks.js')).lightMovements()
const ours = {
  clear: Movements.prototype.clearCollisionIndex,
  update: Movements.prototype.updateCollisionIndex,
  get: Movements.prototype.getNumEntitiesAt
}
let seed = 5
const rand = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return (seed >>> 8) % n }
const me = { name: 'player' }
const entities = { 0: me }
for (let i = 1; i < 60; i++) {
  const far = i % 10 === 0 ? 40000 : 0 // a few beyond the numeric grid
  entities[i] = {
    name: ['player', 'zombie', 'item', 'cow', 'creeper'][rand(5)],
    width: [0.6, 0.25, 0.9][rand(3)],
    height: [1.8, 0.25, 1.4][rand(3)],
    position: { x: far + rand(40) - 20 + rand(100) / 100, y: 60 + rand(8) + rand(100) / 100, z: rand(40) - 20 + rand(100) / 100 }
  }
}
function index (fns) {
  const m = {
    bot: { entities, entity: me },
    entitiesToAvoid: new Set(['creeper']),
    passableEntities: new Set(['item']),
    allowEntityDetection: true,
    entityIntersections: {}
  }
  fns.clear.call(m)
  fns.update.call(m)
  return m
}
const a = index(stock)
const b = index(ours)
let asked = 0
let nonzero = 0
let far = 0
const differ = []
for (let x = -22; x <= 22; x++) {
  for (let y = 58; y <= 72; y++) {
    for (let z = -22; z <= 22; z++) {
      for (const ox of [0, 40000]) {
        const pos = { x: x + ox, y, z }
        asked++
        const want = stock.get.call(a, pos, 0, 1, 0)
        const got = ours.get.call(b, pos, 0, 1, 0)
        if (want) nonzero++
        if (want && ox) far++
        if (want !== got) differ.push([pos, want, got])
      }
    }
  }
}
const half = { x: 0.5, y: 64, z: 0.5 }
if (stock.get.call(a, half, 0, 0, 0) !== ours.get.call(b, half, 0, 0, 0)) differ.push([half])
process.stdout.write(JSON.stringify({ asked, nonzero, far, differ: differ.slice(0, 5), differing: differ.length }))
