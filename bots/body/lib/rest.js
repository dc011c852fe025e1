'use strict'
// A body at rest costs no physics. mineflayer simulates every bot 20 times a second
// (prismarine-physics: a PlayerState built from the bot, then collisions against the blocks
// around it), also while it stands on the ground with no control pressed and nothing moving
// it, when every tick gives back the same position and velocity. Here such a tick is not
// simulated: once two simulated ticks in a row changed nothing, the next ticks keep the state
// as it is until something could change it: a control pressed, a jump queued, the position,
// velocity or ground contact changed by a packet (a teleport, knockback, an explosion), or a
// block changing within reach of its box, a chunk column under or beside it loaded anew, an
// effect (`wakeOnBlock`, `wakeOnColumn`, `wake`: body.js).
//
// Nothing else changes: mineflayer still runs its tick (physicsTick listeners such as the
// pathfinder still run, and a pathfinder that presses a control wakes the body on the next
// tick) and still sends what it sent before (the position packet a vanilla client sends at
// least once a second standing still); the state it sends is the one a simulation would
// have given. Installed by patching prismarine-physics before mineflayer loads its physics
// plugin; the pathfinder's own look-ahead simulations (other control objects) are untouched.
//
// Every simulation (mineflayer's tick and the pathfinder's look-ahead) also reads the blocks
// through lib/light_blocks.js (one Block per state id, not one per look-up).
const physicsModule = require('prismarine-physics')
const { lightWorld } = require('./light_blocks')

// the control objects of mineflayer's own per-tick simulations (one per bot)
const TICK_CONTROLS = new WeakSet()
// a tick that was not simulated: mineflayer applies it to the bot, which changes nothing
const UNCHANGED = Object.freeze({ apply () {} })
// ticks that changed nothing before the body rests
const QUIET_TICKS = 2

const CONTROLS = ['forward', 'back', 'left', 'right', 'jump', 'sprint', 'sneak']

/** The rest record of one bot's physics (mineflayer makes one Physics per bot). */
class Rest {
  constructor () {
    this.quiet = 0
    this.skipped = 0
    this.simulated = 0
    this.x = 0; this.y = 0; this.z = 0
    this.vx = 0; this.vy = 0; this.vz = 0
  }

  /** Forget the quiet ticks: the next tick is simulated. */
  wake () { this.quiet = 0 }

  /** Whether this tick of ``bot`` would change nothing (and so is not simulated). */
  still (bot, control) {
    if (this.quiet < QUIET_TICKS) return false
    const e = bot.entity
    const p = e.position
    const v = e.velocity
    if (!e.onGround || e.isInWater || e.isInLava || e.isInWeb || bot.jumpQueued || bot.jumpTicks) return this._woken()
    if (p.x !== this.x || p.y !== this.y || p.z !== this.z) return this._woken()
    if (v.x !== this.vx || v.y !== this.vy || v.z !== this.vz) return this._woken()
    for (const c of CONTROLS) if (control[c]) return this._woken()
    this.skipped++
    return true
  }

  _woken () { this.quiet = 0; return false }

  /** After a simulated tick: count it as quiet when it left position and velocity as they were. */
  record (before, after) {
    this.simulated++
    const same = after.onGround && before.x === after.pos.x && before.y === after.pos.y &&
      before.z === after.pos.z && before.vx === after.vel.x && before.vy === after.vel.y &&
      before.vz === after.vel.z
    this.quiet = same ? this.quiet + 1 : 0
    this.x = after.pos.x; this.y = after.pos.y; this.z = after.pos.z
    this.vx = after.vel.x; this.vy = after.vel.y; this.vz = after.vel.z
  }
}

function install () {
  if (physicsModule.pianoRest) return true
  const mineflayerPhysics = safeResolve('mineflayer/lib/plugins/physics')
  // mineflayer takes Physics and PlayerState from the module when its plugin loads
  if (mineflayerPhysics && require.cache[mineflayerPhysics]) return false
  const RealPhysics = physicsModule.Physics
  const RealPlayerState = physicsModule.PlayerState

  function Physics (mcData, world) {
    const physics = RealPhysics(mcData, world)
    const simulate = physics.simulatePlayer
    const rest = new Rest()
    physics.pianoRest = rest
    physics.simulatePlayer = (state, w) => {
      if (state === UNCHANGED) return state
      const blocks = state.pianoBot ? lightWorld(state.pianoBot) : w
      // mineflayer's own tick simulates against the world it made this Physics with
      if (w !== world) return simulate(state, blocks)
      TICK_CONTROLS.add(state.control)
      const before = { x: state.pos.x, y: state.pos.y, z: state.pos.z, vx: state.vel.x, vy: state.vel.y, vz: state.vel.z }
      const out = simulate(state, blocks)
      rest.record(before, out)
      return out
    }
    return physics
  }

  function PlayerState (bot, control) {
    const rest = bot.physics && bot.physics.pianoRest
    if (rest && TICK_CONTROLS.has(control) && rest.still(bot, control)) return UNCHANGED
    const state = new RealPlayerState(bot, control)
    state.pianoBot = bot // whose chunks its simulation reads
    return state
  }
  PlayerState.prototype = RealPlayerState.prototype

  physicsModule.Physics = Physics
  physicsModule.PlayerState = PlayerState
  physicsModule.pianoRest = true
  return true
}

/**
 * Wake ``bot`` when a block changes within reach of its box (the ground under it taken
 * away, a block placed into it): call from the bot's blockUpdate listener.
 */
function wakeOnBlock (bot, position) {
  const rest = bot.physics && bot.physics.pianoRest
  const e = bot.entity
  if (!rest || rest.quiet === 0 || !e || !position) return
  const p = e.position
  if (Math.abs(position.x + 0.5 - p.x) <= 2 && Math.abs(position.z + 0.5 - p.z) <= 2 &&
      position.y >= p.y - 2 && position.y <= p.y + 3) rest.wake()
}

/**
 * Wake ``bot`` when a chunk column within reach of its box is loaded (again: the blocks under
 * it may be other ones, and a load emits no blockUpdate): call from its chunkColumnLoad
 * listener with the column's corner.
 */
function wakeOnColumn (bot, corner) {
  const rest = bot.physics && bot.physics.pianoRest
  const e = bot.entity
  if (!rest || rest.quiet === 0 || !e || !corner) return
  const p = e.position
  if (p.x >= corner.x - 2 && p.x <= corner.x + 18 && p.z >= corner.z - 2 && p.z <= corner.z + 18) rest.wake()
}

/** Whether ``bot`` is at rest (its ticks are not simulated until something wakes it). */
function isResting (bot) {
  const rest = bot && bot.physics && bot.physics.pianoRest
  return !!rest && rest.quiet >= QUIET_TICKS
}

/** Wake ``bot`` (its next tick is simulated). */
function wake (bot) {
  const rest = bot.physics && bot.physics.pianoRest
  if (rest) rest.wake()
}

function safeResolve (name) {
  try { return require.resolve(name) } catch (e) { return null }
}

module.exports = { install, wake, wakeOnBlock, wakeOnColumn, isResting, Rest, QUIET_TICKS }
