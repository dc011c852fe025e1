'use strict'
// Microbenchmarks of the cells a body remembers (run from bots/: node
// ../agent_runtime/app/results/density-2026-12-02-cells/microbench.js VERSION), one JSON line each,
// alternating the two ways in one process, medians over the rounds:
// - search: the pathfinder's A* planning four paths across the generated village with
//   bots/body/lib/light_blocks.js's Movements.getBlock remembering each cell it read (on) and
//   reading every cell anew (off: what it did before), and whether both found the same path
//   after the same number of nodes;
// - walk: 16 simulated walks of 60 ticks (what the pathfinder's look-ahead simulates at every
//   tick of a walk) over lightWorld's blocks remembered per cell (on) and read anew (off), and
//   whether every position of every walk is the same. Before each remembered round a block
//   update elsewhere empties what was remembered, so each round reads its cells afresh.
const path = require('path')
const { req, villageWorld } = require(path.resolve(process.cwd(), '../tests/bodies/js/village_world.js'))
const version = process.argv[2] || '1.21.11'
const { performance } = require('perf_hooks')
const { Vec3 } = req('vec3')
const { Physics, PlayerState } = req('prismarine-physics')
const { Movements, goals } = req('mineflayer-pathfinder')
const AStar = req('mineflayer-pathfinder/lib/astar')
const Move = req('mineflayer-pathfinder/lib/move')
const body = path.resolve(process.cwd(), 'body/lib')
require(path.join(body, 'lazy_light.js')).install()
const { lightMovements, lightWorld, lightBlockAt } = require(path.join(body, 'light_blocks.js'))
lightMovements()
const { registry, world, bot, groundAt } = villageWorld(version, [-3, 2], [-4, 1])
const movements = new Movements(bot)
Object.assign(movements, { canDig: false, allow1by1towers: false, allowSprinting: true, allowParkour: true })
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1]
const ROUNDS = 400
const WARM = 40

// a map that remembers nothing: every read goes to the world
const FORGETFUL = { get () {}, set () {}, size: 0, clear () {} }

const ROUTES = [[0, -10, 14, -22], [-12, -4, 10, -6], [5, -30, -8, -14], [-20, -20, -2, -40]]
for (const [sx, sz, gx, gz] of ROUTES) {
  const sy = groundAt(sx, sz)
  const gy = groundAt(gx, gz)
  const plan = (remember) => {
    movements.pianoCellMemo = { world, n: -1, blocks: remember ? new Map() : FORGETFUL }
    return new AStar(new Move(sx, sy, sz, 0, 0), movements, new goals.GoalBlock(gx, gy, gz), 10000, 10000).compute()
  }
  const ms = { on: [], off: [] }
  const last = {}
  for (let i = 0; i < ROUNDS; i++) {
    const remember = i % 2 === 0
    const t0 = performance.now()
    const r = plan(remember)
    const dt = performance.now() - t0
    if (i >= WARM) ms[remember ? 'on' : 'off'].push(dt)
    last[remember ? 'on' : 'off'] = r
  }
  const shape = (r) => JSON.stringify([r.status, r.visitedNodes, r.path.map(n => [n.x, n.y, n.z, n.cost])])
  console.log(JSON.stringify({
    bench: 'search', version, route: [sx, sz, gx, gz], status: last.on.status, search_nodes: last.on.visitedNodes,
    off_ms: +median(ms.off).toFixed(3), on_ms: +median(ms.on).toFixed(3), same_search: shape(last.on) === shape(last.off)
  }))
}

const physics = Physics(registry, world)
const starts = []
for (let i = 0; i < 16; i++) {
  const x = -30 + (i * 7) % 50
  const z = -50 + (i * 11) % 50
  starts.push([x + 0.5, groundAt(x, z), z + 0.5, i * 0.4])
}
function walk (blocks, [x, y, z, yaw]) {
  const entity = {
    position: new Vec3(x, y, z), velocity: new Vec3(0, 0, 0), onGround: true, isInWater: false, isInLava: false,
    isInWeb: false, isCollidedHorizontally: false, isCollidedVertically: false, elytraFlying: false, yaw, pitch: 0, effects: {}, attributes: {}
  }
  const fake = { entity, version, jumpTicks: 0, jumpQueued: false, fireworkRocketDuration: 0, inventory: { slots: [] } }
  const control = { forward: true, back: false, left: false, right: false, jump: false, sprint: true, sneak: false }
  const state = new PlayerState(fake, control)
  const out = []
  for (let t = 0; t < 60; t++) {
    if (t % 15 === 0) state.yaw += 0.3
    physics.simulatePlayer(state, blocks)
    out.push(state.pos.x, state.pos.y, state.pos.z)
  }
  return out
}
const remembered = lightWorld(bot)
const anew = { getBlock: (p) => lightBlockAt(bot, p) }
const same = starts.every(s => JSON.stringify(walk(remembered, s)) === JSON.stringify(walk(anew, s)))
const ms = { on: [], off: [] }
for (let r = 0; r < ROUNDS; r++) {
  for (const [k, w] of [['on', remembered], ['off', anew]]) {
    if (k === 'on') world.emit('blockUpdate') // a change: what was remembered is read anew
    const t0 = performance.now()
    for (const s of starts) walk(w, s)
    const dt = performance.now() - t0
    if (r >= WARM) ms[k].push(dt)
  }
}
console.log(JSON.stringify({
  bench: 'walk', version, walks: starts.length, ticks: 60,
  off_ms: +median(ms.off).toFixed(3), on_ms: +median(ms.on).toFixed(3), same_positions: same
}))
