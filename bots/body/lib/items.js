'use strict'
// Item entities and pickups, seen from a body: which stacks appeared near a spot,
// who picked them up (the server's `collect` packet names the collector and the
// count), and a pathfinder goal that ends where a stack is within pickup range.
// Every wait is on events (spawn, collect, entity gone) with a timeout.

const { goals } = require('mineflayer-pathfinder')
const { SkillAborted } = require('./util')

// vanilla pickup range: the player's box (0.6 wide, 1.8 high) grown by 1 block
// sideways and 0.5 up/down; a margin for standing off the block centre
const PICKUP_SIDE = 1.1
const PICKUP_DOWN = 0.6
const PICKUP_UP = 2.1

/** Whether a stack at ``pos`` is within the server's pickup range of feet at ``feet`` (small margin). */
function inPickupRange (feet, pos) {
  return Math.abs(pos.x - feet.x) <= 1.3 && Math.abs(pos.z - feet.z) <= 1.3 &&
    pos.y >= feet.y - 0.7 && pos.y <= feet.y + 2.2
}

/** Ends on a block from which a stack at ``pos`` is within pickup range. */
class GoalPickup extends goals.Goal {
  constructor (pos) {
    super()
    this.x = pos.x
    this.y = pos.y
    this.z = pos.z
  }

  heuristic (node) {
    const dx = node.x + 0.5 - this.x
    const dz = node.z + 0.5 - this.z
    return Math.sqrt(dx * dx + dz * dz) + Math.abs(node.y - this.y)
  }

  isEnd (node) {
    return Math.abs(node.x + 0.5 - this.x) <= PICKUP_SIDE && Math.abs(node.z + 0.5 - this.z) <= PICKUP_SIDE &&
      this.y >= node.y - PICKUP_DOWN && this.y <= node.y + PICKUP_UP
  }
}

/**
 * Watches item stacks that spawn within ``radius`` of ``near()`` (a point, or a list of
 * points) from now on, and every pickup the server announces. ``close()`` when done.
 */
class ItemWatch {
  constructor (bot, near, radius) {
    this.bot = bot
    this.spawned = new Map() // id -> entity
    this.bornAt = new Map() // id -> Date.now() when it appeared
    this.collected = new Map() // id -> {collector, count}
    this.gone = new Set()
    this._wake = null
    this._onSpawn = (e) => {
      if (e.name !== 'item') return
      const at = near()
      const points = Array.isArray(at) ? at : [at]
      if (points.some(q => q && e.position.distanceTo(q) <= radius)) { this.spawned.set(e.id, e); this.bornAt.set(e.id, Date.now()); this._poke() }
    }
    this._onCollect = (p) => {
      this.collected.set(p.collectedEntityId, { collector: p.collectorEntityId, count: p.pickupItemCount || 1 })
      this._poke()
    }
    this._onGone = (e) => { if (this.spawned.has(e.id)) { this.gone.add(e.id); this._poke() } }
    bot.on('entitySpawn', this._onSpawn)
    bot._client.on('collect', this._onCollect)
    bot.on('entityGone', this._onGone)
    bot.inventory.on('updateSlot', this._onSlot = () => this._poke())
  }

  _poke () { if (this._wake) this._wake() }

  /** Stacks seen that are still lying there (not collected, not gone). */
  lying () {
    return [...this.spawned.values()].filter(e => !this.collected.has(e.id) && !this.gone.has(e.id) && e.isValid)
  }

  /** Items the entity ``collectorId`` picked up from the watched stacks. */
  countBy (collectorId) {
    let n = 0
    for (const [id, c] of this.collected) if (this.spawned.has(id) && c.collector === collectorId) n += c.count
    return n
  }

  /** Pickups of watched stacks by anybody but ``except`` (entity ids): [{collector, count}]. */
  takenByOthers (except) {
    return [...this.collected].filter(([id, c]) => this.spawned.has(id) && !except.includes(c.collector)).map(([, c]) => c)
  }

  /** Resolve true as soon as ``pred()`` holds (re-checked on every watched event), false after ``ms``. */
  until (pred, ms, signal) {
    return new Promise((resolve, reject) => {
      if (pred()) return resolve(true)
      let t = null
      const done = (v, err) => {
        clearTimeout(t)
        this._wake = null
        if (signal) signal.removeEventListener('abort', onAbort)
        if (err) reject(err)
        else resolve(v)
      }
      const onAbort = () => done(null, new SkillAborted(String(signal.reason || 'aborted')))
      if (signal) {
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
      }
      this._wake = () => { if (pred()) done(true) }
      t = setTimeout(() => done(pred()), ms)
    })
  }

  close () {
    this._wake = null
    this.bot.removeListener('entitySpawn', this._onSpawn)
    this.bot._client.removeListener('collect', this._onCollect)
    this.bot.removeListener('entityGone', this._onGone)
    this.bot.inventory.removeListener('updateSlot', this._onSlot)
  }
}

module.exports = { GoalPickup, ItemWatch, inPickupRange }
