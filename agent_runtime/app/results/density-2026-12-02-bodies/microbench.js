'use strict'
// Microbenchmarks of what a walking body no longer does (run from bots/: node
// ../agent_runtime/app/results/density-2026-12-02-bodies/microbench.js VERSION), one JSON line each:
// - search: the pathfinder's A* planning each of four paths across the generated village
//   (what a path reset cost: a new search from the body's place), against keep: the check of
//   lib/path_keep.js for a block changed beside that path (each cell next to its nodes in turn);
// - loaded: the physics tick's "is my chunk loaded" read, mineflayer's (prismarine-world's
//   getBlock: a full Block, its light and biome) against a light block (lib/light_blocks.js).
const path = require('path')
const req = require('module').createRequire(path.resolve(process.cwd(), 'package.json'))
const version = process.argv[2] || '1.21.11'
const { performance } = require('perf_hooks')
const { Vec3 } = req('vec3')
const registry = req('prismarine-registry')(version)
const World = req('prismarine-world')(registry)
const { Movements, goals } = req('mineflayer-pathfinder')
const AStar = req('mineflayer-pathfinder/lib/astar')
const Move = req('mineflayer-pathfinder/lib/move')
const body = path.resolve(process.cwd(), 'body/lib')
require(path.join(body, 'lazy_light.js')).install()
const { lightMovements, lightBlockAt } = require(path.join(body, 'light_blocks.js'))
lightMovements()
const { keepsPath, cellOf } = require(path.join(body, 'path_keep.js'))
const generate = require(path.resolve(process.cwd(), 'server/generator'))({ seed: 0, villageSeed: 0, layout: {}, registry })
const world = new World(null).sync
for (let cx = -3; cx <= 2; cx++) for (let cz = -4; cz <= 1; cz++) world.setColumn(cx, cz, generate(cx, cz))
const bot = { world, registry, version, entities: {}, game: { minY: -64 }, inventory: { items: () => [] }, blockAt: (p) => world.getBlock(p) }
const movements = new Movements(bot)
Object.assign(movements, { canDig: false, allow1by1towers: false, allowSprinting: true, allowParkour: true })

function groundAt (x, z) {
  for (let y = 120; y > 40; y--) if (world.getBlock(new Vec3(x, y, z)).boundingBox === 'block') return y + 1
  return null
}

const ROUTES = [[0, -10, 14, -22], [-12, -4, 10, -6], [5, -30, -8, -14], [-20, -20, -2, -40]]
const stone = registry.blocksByName.stone.defaultState
const air = registry.blocksByName.air.defaultState
for (const [sx, sz, gx, gz] of ROUTES) {
  const sy = groundAt(sx, sz)
  const gy = groundAt(gx, gz)
  const plan = () => new AStar(new Move(sx, sy, sz, 0, 0), movements, new goals.GoalBlock(gx, gy, gz), 10000, 10000).compute()
  let r = plan()
  for (let i = 0; i < 5; i++) r = plan() // warm
  const N = 30
  let t0 = performance.now()
  for (let i = 0; i < N; i++) r = plan()
  const searchMs = (performance.now() - t0) / N
  // the cells beside the path's nodes (what the stock pathfinder calls near it), turned to stone or air
  const here = new Vec3(sx + 0.5, sy, sz + 0.5)
  const cells = []
  for (const n of r.path) {
    const [x, y, z] = cellOf(n)
    for (const [dx, dy, dz] of [[1, 1, 0], [-1, 1, 0], [0, 2, 1], [1, -1, 1], [0, 0, 0], [0, -1, 0]]) cells.push(new Vec3(x + dx, y + dy, z + dz))
  }
  let kept = 0
  let checks = 0
  t0 = performance.now()
  for (let round = 0; round < 10; round++) {
    for (const c of cells) {
      const before = world.getBlockStateId(c)
      world.setBlockStateId(c, before === air ? stone : air)
      if (keepsPath(movements, here, r.path, c)) kept++
      checks++
      world.setBlockStateId(c, before)
    }
  }
  const keepUs = (performance.now() - t0) * 1000 / checks
  console.log(JSON.stringify({ bench: 'search_vs_keep', version, route: [sx, sz, gx, gz], status: r.status, path_nodes: r.path.length, search_nodes: r.visitedNodes, search_ms: +searchMs.toFixed(3), keep_check_us: +keepUs.toFixed(2), changes: checks / 10, kept_share: +(kept / checks).toFixed(3) }))
}

// the physics tick's loaded check: the block at a body's position
const positions = []
for (let i = 0; i < 64; i++) positions.push(new Vec3(-40 + (i * 7.3) % 70, 66.5, -60 + (i * 5.1) % 70))
function per (fn) {
  for (let i = 0; i < 20000; i++) fn(positions[i & 63])
  const N = 400000
  const t0 = performance.now()
  let n = 0
  for (let i = 0; i < N; i++) if (fn(positions[i & 63]) != null) n++
  return { us: +((performance.now() - t0) * 1000 / N).toFixed(3), loaded: n }
}
const full = per(p => world.getBlock(p))
const light = per(p => lightBlockAt(bot, p))
console.log(JSON.stringify({ bench: 'loaded_check', version, full_block_us: full.us, light_block_us: light.us, same_answers: full.loaded === light.loaded }))
