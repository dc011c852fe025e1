'use strict'
// lib/path_keep.js over the generated village: paths planned by the pathfinder's A* (the bodies'
// walking Movements), then, one at a time, every block in a box around each path turned to
// stone (air) or air (anything else). For each change: whether keepsPath keeps the path, and
// whether every move of the path (from its start) is still one the search generates after it.
// Prints how many changes were tried, near the path (the stock pathfinder throws the path away
// for those), kept, and the changes kept although a move changed (must be none).
const path = require('path')
const { req, villageWorld } = require('./village_world')
const [version] = process.argv.slice(2).map(a => JSON.parse(a))
const { Vec3 } = req('vec3')
const { Movements } = req('mineflayer-pathfinder')
const AStar = req('mineflayer-pathfinder/lib/astar')
const Move = req('mineflayer-pathfinder/lib/move')
const { registry, world, bot, groundAt } = villageWorld(version, [-3, 2], [-4, 1])
require(path.resolve(__dirname, '../../../bots/body/lib/light_blocks.js')).lightMovements()
const { keepsPath, cellOf } = require(path.resolve(__dirname, '../../../bots/body/lib/path_keep.js'))
const movements = new Movements(bot)
movements.canDig = false
movements.allow1by1towers = false
movements.allowSprinting = true
movements.allowParkour = true


const stone = registry.blocksByName.stone.defaultState
const air = registry.blocksByName.air.defaultState
const { goals } = req('mineflayer-pathfinder')
let tried = 0
let near = 0
let kept = 0
const missed = []
const paths = []
for (const [sx, sz, gx, gz] of [[0, -10, 14, -22], [-12, -4, 10, -6], [5, -30, -8, -14], [-20, -20, -2, -40]]) {
  const sy = groundAt(sx, sz)
  const gy = groundAt(gx, gz)
  if (sy === null || gy === null) continue
  const start = new Move(sx, sy, sz, 0, 0)
  const result = new AStar(start, movements, new goals.GoalBlock(gx, gy, gz), 5000, 5000).compute()
  if (result.status !== 'success' || result.path.length < 4) continue
  paths.push(result.path.length)
  const moves = [start, ...result.path]
  const stillValid = () => {
    for (let i = 0; i + 1 < moves.length; i++) {
      const [ax, ay, az] = cellOf(moves[i])
      const hash = cellOf(moves[i + 1]).join(',')
      const n = movements.getNeighbors(new Move(ax, ay, az, 0, 0)).find(m => m.hash === hash)
      if (!n || n.toBreak.length || n.toPlace.length) return false
    }
    return true
  }
  const here = new Vec3(sx + 0.5, sy, sz + 0.5)
  const cells = moves.map(cellOf)
  const lo = [0, 1, 2].map(k => Math.min(...cells.map(c => c[k])) - 4)
  const hi = [0, 1, 2].map(k => Math.max(...cells.map(c => c[k])) + 4)
  for (let x = lo[0]; x <= hi[0]; x++) {
    for (let y = lo[1]; y <= hi[1]; y++) {
      for (let z = lo[2]; z <= hi[2]; z++) {
        const pos = new Vec3(x, y, z)
        const before = world.getBlockStateId(pos)
        const isNear = result.path.some(n => { const c = cellOf(n); return Math.abs(c[0] - x) <= 1 && Math.abs(c[2] - z) <= 1 && y >= c[1] - 2 && y <= c[1] + 1 })
        if (!isNear && (x + y + z) % 3 !== 0) continue // every change near the path, a third of the rest
        world.setBlockStateId(pos, before === air ? stone : air)
        tried++
        if (isNear) near++
        const keep = keepsPath(movements, here, result.path, pos)
        if (keep) {
          if (isNear) kept++
          if (!stillValid() && missed.length < 5) missed.push([x, y, z])
        }
        world.setBlockStateId(pos, before)
      }
    }
  }
}
process.stdout.write(JSON.stringify({ paths, tried, near, kept, missed }))
