'use strict'
// explore: walk roughly ``distance`` blocks in a direction that looks open and was not
// visited recently, as a player picks a way across the land it sees.
const { Vec3 } = require('vec3')
const { gotoGoal, goals } = require('../lib/move')
const { SkillError, SkillAborted, vec } = require('../lib/util')

const DIRECTIONS = 16 // directions looked along
const STEP = 3 // blocks between the ground samples of a look
const CLIMB = 2 // the most the ground may rise between two samples (a step of 3 blocks)
const DROP = 4 // ... or fall
const TRIES = 4
const REMEMBERED = 12 // places an explorer remembers having explored to

/**
 * The standing height at column (x, z) near ``nearY``: the top of the first block that
 * bears a player (not leaves: a player walks under a canopy) with room for one above;
 * ``{y, water}``, or null when the column is not loaded here or has no such spot.
 */
function groundAt (bot, x, z, nearY) {
  const top = Math.floor(nearY) + CLIMB + 3
  let above = 0 // passable blocks seen just above the current one
  for (let y = top; y >= Math.floor(nearY) - DROP - 2; y--) {
    const b = bot.blockAt(new Vec3(x, y, z))
    if (!b) return null
    const water = b.name === 'water'
    const bears = b.boundingBox === 'block' && !b.name.endsWith('_leaves')
    if ((bears || water) && above >= 2) return { y: y + 1, water }
    above = (b.boundingBox === 'empty' || b.name.endsWith('_leaves')) && !water ? above + 1 : 0
  }
  return null
}

/** How far the land looks walkable along ``angle`` (up to ``distance``), and the point there. */
function look (bot, angle, distance) {
  const p = bot.entity.position
  let y = p.y
  let reach = 0
  for (let d = STEP; d <= distance; d += STEP) {
    const x = Math.floor(p.x + Math.cos(angle) * d)
    const z = Math.floor(p.z + Math.sin(angle) * d)
    const g = groundAt(bot, x, z, y)
    if (!g || g.water || g.y - y > CLIMB || y - g.y > DROP) break
    y = g.y
    reach = d
  }
  return { angle, reach, x: p.x + Math.cos(angle) * reach, z: p.z + Math.sin(angle) * reach }
}

/**
 * Directions to try, best first: the land that looks walkable furthest (capped at
 * ``distance``), away from the places explored to last. Directions whose land is not
 * walkable for half the distance come last, in their random order.
 */
function rankDirections (bot, distance, random, visited = []) {
  const offset = random() * Math.PI * 2
  const looks = []
  for (let i = 0; i < DIRECTIONS; i++) looks.push(look(bot, offset + (i * 2 * Math.PI) / DIRECTIONS, distance))
  const novelty = (l) => {
    if (visited.length === 0) return distance
    return Math.min(distance, ...visited.map(v => Math.hypot(v.x - l.x, v.z - l.z)))
  }
  const score = (l) => (l.reach >= distance / 2 ? l.reach + novelty(l) : -1)
  return looks
    .map((l, i) => ({ ...l, score: score(l), tie: random(), i }))
    .sort((a, b) => b.score - a.score || a.tie - b.tie)
}

module.exports = {
  args: {
    distance: { type: 'number', default: 32.0 }
  },
  rankDirections,
  groundAt,
  async run (ctx, { distance }) {
    const bot = ctx.bot
    const start = bot.entity.position.clone()
    if (!bot.pianoExplored) bot.pianoExplored = []
    const visited = bot.pianoExplored
    const ranked = rankDirections(bot, distance, ctx.random, visited)
    const open = ranked.filter(l => l.score >= 0).length
    let tried = 0
    for (const l of ranked.slice(0, TRIES)) {
      // open land: walk to where it still looked walkable; else the full distance that way
      const far = l.score >= 0 ? l.reach : distance
      const tx = start.x + Math.cos(l.angle) * far
      const tz = start.z + Math.sin(l.angle) * far
      ctx.progress(tried / TRIES, `exploring towards (${Math.round(tx)}, ${Math.round(tz)})`)
      tried++
      try {
        await gotoGoal(ctx, new goals.GoalNearXZ(tx, tz, 3), `(${Math.round(tx)}, ${Math.round(tz)})`, { leaves: true })
        return done(bot, visited, start, { open_directions: open })
      } catch (err) {
        if (err instanceof SkillAborted) throw err
        if (bot.entity.position.distanceTo(start) >= distance / 2) {
          return done(bot, visited, start, { open_directions: open, partial: true })
        }
      }
    }
    const why = open === 0
      ? `the land around looks walkable for less than ${Math.round(distance / 2)} blocks in every direction (water, cliffs or unloaded ground)`
      : `could not walk ${Math.round(distance)} blocks in ${tried} directions`
    throw new SkillError(`no path: ${why}`, { open_directions: open, tried }, 'target_out_of_reach')
  }
}

function done (bot, visited, start, detail) {
  const end = bot.entity.position
  visited.push({ x: end.x, z: end.z })
  if (visited.length > REMEMBERED) visited.shift()
  return { detail: { from: vec(start), to: vec(end), ...detail } }
}
