'use strict'
// Small helpers shared by the body plugins and skills. No I/O at load time.

const { Vec3 } = require('vec3')

/**
 * A failure whose message is a reason a language model can act on; ``kind`` is one of
 * ``agent_runtime.world.FailureKind`` (the outcome's ``failure``).
 */
class SkillError extends Error {
  constructor (reason, detail, kind) {
    super(reason)
    this.name = 'SkillError'
    this.reason = reason
    this.detail = detail || {}
    this.kind = kind || classify(reason)
  }
}

/** The FailureKind of a reason written without one (the common phrasings of the skills). */
function classify (reason) {
  const r = String(reason)
  if (/^missing tool/.test(r)) return 'tool_missing'
  if (/^(no path|target out of reach|could not reach|lost sight)/.test(r)) return 'target_out_of_reach'
  if (/not in sight|^no .* within \d+ blocks|^unknown (block|item)/.test(r)) return 'target_not_found'
  if (/^(no .* in inventory|not enough |missing (ingredients|fuel)|no fuel)/.test(r)) return 'item_missing'
  return 'other'
}

/** Raised inside a skill when it was cancelled, timed out or found stuck. */
class SkillAborted extends Error {
  constructor (why) {
    super(why)
    this.name = 'SkillAborted'
  }
}

const round = (v, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits

function vec (p) {
  return p ? { x: round(p.x), y: round(p.y), z: round(p.z) } : null
}

function toVec3 (o) {
  return new Vec3(Number(o.x), Number(o.y), Number(o.z))
}

/** Inventory as {item name: count} (main inventory, hotbar, armour and off-hand). */
function inventoryCounts (bot) {
  const counts = {}
  if (!bot || !bot.inventory) return counts
  for (const item of bot.inventory.slots) {
    if (!item) continue
    counts[item.name] = (counts[item.name] || 0) + item.count
  }
  return counts
}

function inventoryDelta (before, after) {
  const delta = {}
  const names = new Set([...Object.keys(before), ...Object.keys(after)])
  for (const name of names) {
    const d = (after[name] || 0) - (before[name] || 0)
    if (d !== 0) delta[name] = d
  }
  return delta
}

function countOf (bot, name) {
  return inventoryCounts(bot)[name] || 0
}

/**
 * Names in ``registry`` (an object keyed by name) that ``wanted`` denotes: the
 * exact name, or a family such as "log" (every "*_log"), "planks", "ore".
 */
function resolveNames (byName, wanted) {
  wanted = String(wanted).trim().toLowerCase().replace(/^minecraft:/, '').replace(/\s+/g, '_')
  if (byName[wanted]) return [wanted]
  const family = Object.keys(byName).filter(n =>
    n.endsWith('_' + wanted) || n.startsWith(wanted + '_') || n === wanted + 's' || n.endsWith('_' + wanted + 's'))
  return family.sort()
}

function findItem (bot, name) {
  const names = resolveNames(bot.registry.itemsByName, name)
  for (const n of names) {
    const item = bot.inventory.items().find(i => i.name === n)
    if (item) return item
  }
  return null
}

/** Sleep that rejects with SkillAborted as soon as ``signal`` aborts. */
function sleep (ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) return reject(new SkillAborted(String(signal.reason || 'aborted')))
    const t = setTimeout(() => { cleanup(); resolve() }, ms)
    const onAbort = () => { clearTimeout(t); cleanup(); reject(new SkillAborted(String(signal.reason || 'aborted'))) }
    const cleanup = () => { if (signal) signal.removeEventListener('abort', onAbort) }
    if (signal) signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** Resolve when ``emitter`` emits ``event`` and ``pred`` holds, or null after ``ms``. */
function waitForEvent (emitter, event, pred, ms, signal) {
  return new Promise((resolve, reject) => {
    const onEvent = (...args) => { if (!pred || pred(...args)) { cleanup(); resolve(args) } }
    const onAbort = () => { cleanup(); reject(new SkillAborted(String(signal.reason || 'aborted'))) }
    const t = setTimeout(() => { cleanup(); resolve(null) }, ms)
    const cleanup = () => {
      clearTimeout(t)
      emitter.removeListener(event, onEvent)
      if (signal) signal.removeEventListener('abort', onAbort)
    }
    emitter.on(event, onEvent)
    if (signal) signal.addEventListener('abort', onAbort, { once: true })
  })
}

function truncate (s, n = 300) {
  s = String(s)
  return s.length > n ? s.slice(0, n - 3) + '...' : s
}

// mineflayer's error for a window click the server refused (window transactions, before 1.17:
// the clicked slot changed since the client last saw it, and the server resends the window)
const REJECTED_CLICK = /rejected transaction/i

module.exports = {
  REJECTED_CLICK,
  SkillError,
  classify,
  SkillAborted,
  vec,
  toVec3,
  round,
  inventoryCounts,
  inventoryDelta,
  countOf,
  resolveNames,
  findItem,
  sleep,
  waitForEvent,
  truncate
}
