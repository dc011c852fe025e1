'use strict'
// mineflayer-pathfinder's look-ahead (its lib/physics.js) on a made-up flat world, stock or
// with bots/body/lib/look_ahead.js ("bounded"): whether a body standing at 0.5 64 0.5 can
// walk straight to a path node, and how many ticks the look-ahead simulated for the answer.
// Prints {case: [answer, ticks simulated]}.
const path = require('path')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const [version, mode] = process.argv.slice(2).map(a => JSON.parse(a))
if (mode === 'bounded') require(path.resolve(__dirname, '../../../bots/body/lib/look_ahead.js')).install()
const PathPhysics = req('mineflayer-pathfinder/lib/physics')
const { Physics } = req('prismarine-physics')
const registry = req('prismarine-registry')(version)
const Block = req('prismarine-block')(registry)
const { Vec3 } = req('vec3')

const stone = registry.blocksByName.stone.defaultState
const air = registry.blocksByName.air.defaultState
// ground below y 64; a wall two blocks high along x = 3 (z from -5 to 5)
function stateAt (p) {
  const x = Math.floor(p.x); const y = Math.floor(p.y); const z = Math.floor(p.z)
  if (y < 64) return stone
  if (x === 3 && y < 66 && z >= -5 && z <= 5) return stone
  return air
}
const world = {
  getBlock (p) {
    const b = Block.fromStateId(stateAt(p), 0)
    b.position = new Vec3(Math.floor(p.x), Math.floor(p.y), Math.floor(p.z))
    return b
  }
}

function fakeBot () {
  const bot = {
    version,
    registry,
    entity: {
      position: new Vec3(0.5, 64, 0.5), velocity: new Vec3(0, 0, 0), onGround: true,
      isInWater: false, isInLava: false, isInWeb: false, isCollidedHorizontally: false,
      isCollidedVertically: true, elytraFlying: false, yaw: 0, pitch: 0, effects: {}, attributes: {}
    },
    jumpTicks: 0,
    jumpQueued: false,
    fireworkRocketDuration: 0,
    inventory: { slots: [] },
    controlState: { forward: false, back: false, left: false, right: false, jump: false, sprint: false, sneak: false },
    blockAt: (p) => world.getBlock(p)
  }
  const physics = Physics(registry, world)
  let ticks = 0
  bot.physics = {
    simulatePlayer (state, w) { ticks++; return physics.simulatePlayer(state, w) }
  }
  bot.ticks = () => ticks
  return bot
}

const node = (x, y, z) => Object.assign(new Vec3(x, y, z), { toBreak: [], toPlace: [] })
const cases = {
  open_ground: [node(0.5, 64, -1.5)], // one block north, nothing in between
  two_blocks_east: [node(2.5, 64, 0.5)], // up to the wall
  behind_the_wall: [node(4.5, 64, 0.5)] // beyond a wall two blocks high: never reached
}
const out = {}
for (const [name, p] of Object.entries(cases)) {
  for (const sprint of [false, true]) {
    const bot = fakeBot()
    const answer = new PathPhysics(bot).canStraightLine(p, sprint)
    out[`${name}${sprint ? '_sprint' : ''}`] = [answer, bot.ticks()]
  }
}
process.stdout.write(JSON.stringify(out))
