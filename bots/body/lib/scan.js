'use strict'
// Finding blocks by reading the chunk sections' state ids, not by building a Block per
// position. mineflayer's findBlocks asks bot.blockAt for every position of every section whose
// palette holds a match (a prismarine-block Block each: its state, properties and block
// entity): a body's `collect` search over 64 blocks was most of a body process's CPU in a
// crowded village, in runs long enough that the server timed the process's bodies out (no
// keep-alive answered; bots/body/BENCH.md has the profile). Here a table from state id to a
// small number says what each state is, sections whose palette holds none are skipped, and the
// search grows outwards until it has what was asked for.
const { Vec3 } = require('vec3')

/** The largest state id of ``registry`` (the size of a lookup table). */
function maxStateId (registry) {
  let max = 0
  for (const b of Object.values(registry.blocks)) max = Math.max(max, b.maxStateId ?? b.id)
  return max
}

const tables = new WeakMap() // registry -> Map(key -> Uint8Array)

/** stateId -> 1 for every state of the blocks with these ids (cached per registry). */
function statesOf (registry, ids) {
  let byKey = tables.get(registry)
  if (!byKey) { byKey = new Map(); tables.set(registry, byKey) }
  const key = [...ids].sort((a, b) => a - b).join(',')
  let lookup = byKey.get(key)
  if (!lookup) {
    lookup = new Uint8Array(maxStateId(registry) + 1)
    for (const id of ids) {
      const b = registry.blocks[id]
      if (!b) continue
      for (let s = b.minStateId ?? b.id; s <= (b.maxStateId ?? b.id); s++) lookup[s] = 1
    }
    if (byKey.size > 64) byKey.clear()
    byKey.set(key, lookup)
  }
  return lookup
}

/**
 * Whether chunk ``section`` may hold a state with a non-zero entry in ``lookup`` (a typed
 * array indexed by state id): false for a section never sent (all air, nothing to read) and
 * for one whose palette or single value holds none; true otherwise (global ids may be any).
 */
function sectionMayHold (section, lookup) {
  if (!section || !section.data) return false
  if (Array.isArray(section.palette)) return section.palette.some(id => lookup[id])
  if (section.data.constructor && section.data.constructor.name === 'SingleValueContainer') return !!lookup[section.data.value]
  return true
}

/**
 * Every block within ``radius`` of ``center`` whose state has a non-zero entry in
 * ``lookup`` (a typed array indexed by state id): ``visit(x, y, z, value, d2)`` with ``d2``
 * the squared distance from ``center`` to the block's centre. Reads each section's packed
 * data directly and skips sections whose palette has no such state.
 */
function scanStates (bot, center, radius, lookup, visit) {
  const minY = bot.game.minY || 0
  const height = bot.game.height || 256
  const r2 = radius * radius
  const yLo = Math.max(minY, Math.floor(center.y - radius))
  const yHi = Math.min(minY + height - 1, Math.floor(center.y + radius))
  for (let cx = Math.floor((center.x - radius) / 16); cx <= Math.floor((center.x + radius) / 16); cx++) {
    for (let cz = Math.floor((center.z - radius) / 16); cz <= Math.floor((center.z + radius) / 16); cz++) {
      const column = bot.world.getColumn(cx, cz)
      if (!column || !column.sections) continue
      for (let sy = Math.floor(yLo / 16); sy <= Math.floor(yHi / 16); sy++) {
        const section = column.sections[sy - (minY >> 4)]
        if (!sectionMayHold(section, lookup)) continue
        // With a section palette, map each palette entry once, then read the packed
        // indices; without one (a single value, or global ids), data.get gives state ids.
        const palette = section.palette
        let data = section.data
        let hit = lookup
        if (palette) {
          hit = palette.map(id => lookup[id])
          // 1.18+: the section's data is a palette container, whose get() answers the state
          // id itself; the palette indices are its bits
          if (data.palette === palette && data.data) data = data.data
        }
        const y0 = Math.max(yLo, sy * 16)
        const y1 = Math.min(yHi, sy * 16 + 15)
        for (let y = y0; y <= y1; y++) {
          const dy = y + 0.5 - center.y
          for (let lz = 0; lz < 16; lz++) {
            const dz = cz * 16 + lz + 0.5 - center.z
            const rest = r2 - dy * dy - dz * dz
            if (rest < 0) continue
            // x range of this row inside the sphere
            const half = Math.sqrt(rest)
            const lx0 = Math.max(0, Math.ceil(center.x - half - 0.5 - cx * 16))
            const lx1 = Math.min(15, Math.floor(center.x + half - 0.5 - cx * 16))
            const rowBase = ((y & 15) << 8) | (lz << 4)
            for (let lx = lx0; lx <= lx1; lx++) {
              const value = hit[data.get(rowBase | lx)]
              if (!value) continue
              const dx = cx * 16 + lx + 0.5 - center.x
              visit(cx * 16 + lx, y, cz * 16 + lz, value, dx * dx + dy * dy + dz * dz)
            }
          }
        }
      }
    }
  }
}

const SHELLS = [8, 16, 32]

/**
 * mineflayer's ``bot.findBlocks`` for block ids (a number or an array of numbers): the
 * ``count`` nearest blocks of those ids within ``maxDistance`` of ``point`` (default the
 * body's feet), nearest first, as mineflayer measures it (from the block's corner to the
 * floored point). The search grows (8, 16, 32 blocks, then the whole distance) until it
 * has ``count``: every block within a shell is nearer than any beyond it.
 */
function findBlockPositions (bot, { matching, maxDistance = 16, count = 1, point = null }) {
  const ids = Array.isArray(matching) ? matching : [matching]
  const lookup = statesOf(bot.registry, ids)
  const at = (point || bot.entity.position).floored()
  const center = at.offset(0.5, 0.5, 0.5) // block centres against it: corners against the floored point
  for (const shell of [...SHELLS.filter(r => r < maxDistance), maxDistance]) {
    const found = []
    scanStates(bot, center, shell, lookup, (x, y, z, value, d2) => { found.push({ x, y, z, d2 }) })
    if (found.length >= count || shell >= maxDistance) {
      found.sort((a, b) => a.d2 - b.d2)
      return found.slice(0, count).map(f => new Vec3(f.x, f.y, f.z))
    }
  }
  return []
}

/**
 * Give ``bot`` the state-id search for findBlocks (and so findBlock) by block ids; a search
 * by a function or with extra block info goes to mineflayer's as before.
 */
function fastFindBlocks (bot) {
  const original = bot.findBlocks
  if (!original || original.pianoFast) return
  const fast = (options) => {
    const m = options && options.matching
    const byIds = typeof m === 'number' || (Array.isArray(m) && m.every(x => typeof x === 'number'))
    if (!byIds || options.useExtraInfo || !bot.world || !bot.entity) return original(options)
    return findBlockPositions(bot, options)
  }
  fast.pianoFast = true
  bot.findBlocks = fast
}

module.exports = { scanStates, sectionMayHold, statesOf, maxStateId, findBlockPositions, fastFindBlocks }
