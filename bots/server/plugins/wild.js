'use strict'
// Animals of the wild (generator/wild.js): as players come near, each chunk
// column beyond the village gets its herd (cows, sheep, pigs or chickens; about
// one chunk in ten; the same herds for the same seed), once per server run.
// Mobs have no AI: they stand where they are put. At most MAX_ENTITIES
// entities in all, so a crowd of explorers cannot fill the server.
//
// Safe landing: a teleport (admin API, /tp, a body placed at a far spawn) goes to
// the nearest dry column within 12 blocks that no generated tree covers, and is raised
// to stand on the ground if its y lies inside it (the terrain is the plan's; blocks
// players changed are not looked at).

const Vec3 = require('vec3').Vec3
const { WILD_FULL } = require('../generator/wild')

const HEALTH = { cow: 10, pig: 10, sheep: 8, chicken: 4 }
const NEAR_CHUNKS = 3 // herds within this many chunk columns of a player appear
const EVERY_MS = 2000
const MAX_ENTITIES = 800
const LANDING_RANGE = 12

function planOf (serv) {
  const piano = serv.piano?.settings || {}
  return require('../generator').getPlan({ seed: piano.seed ?? 0, layout: piano.layout || {}, registry: serv.registry })
}

// a tree's trunk or leaves stand over the column (x, z)
function underTree (plan, x, z) {
  return plan.treesNear(x, z, x, z).some(t => Math.abs(t.x - x) <= 2 && Math.abs(t.z - z) <= 2)
}

// where a player teleported to (x, y, z) should stand: the nearest dry column
// within LANDING_RANGE blocks that no tree covers (not on a tree top, from which a
// body can not climb down, nor at the bottom of a lake), at y or, if y is inside
// the ground, on top of it
function landing (plan, x, y, z) {
  const bx = Math.floor(x)
  const bz = Math.floor(z)
  let best = [0, 0]
  search: for (let r = 0; r <= LANDING_RANGE; r++) {
    for (let dx = -r; dx <= r; dx++) {
      for (let dz = -r; dz <= r; dz++) {
        if (Math.max(Math.abs(dx), Math.abs(dz)) !== r) continue
        const c = plan.column(bx + dx, bz + dz)
        if (c.water < 0 && !underTree(plan, bx + dx, bz + dz)) { best = [dx, dz]; break search }
      }
    }
  }
  const col = plan.column(bx + best[0], bz + best[1])
  const ground = Math.max(col.height, col.water) + 1
  return new Vec3(x + best[0], Math.max(y, ground), z + best[1])
}

module.exports.player = function (player, serv) {
  player.once('asap', () => {
    const teleport = player.teleport
    if (!teleport) return
    player.teleport = (position) => {
      try {
        position = landing(planOf(serv), position.x, position.y, position.z)
      } catch (err) {
        serv.warn?.(`safe landing: ${err}`)
      }
      return teleport(position)
    }
  })
}

module.exports.landing = landing

module.exports.server = function (serv, settings) {
  const done = new Set()
  let plan = null
  let busy = false

  async function populate () {
    if (busy) return
    busy = true
    try {
      if (!plan) plan = planOf(serv)
      for (const player of serv.players || []) {
        if (!player.position || !player.world) continue
        const pcx = Math.floor(player.position.x / 16)
        const pcz = Math.floor(player.position.z / 16)
        for (let cx = pcx - NEAR_CHUNKS; cx <= pcx + NEAR_CHUNKS; cx++) {
          for (let cz = pcz - NEAR_CHUNKS; cz <= pcz + NEAR_CHUNKS; cz++) {
            const key = cx + ',' + cz
            if (done.has(key)) continue
            done.add(key)
            const d = Math.hypot(cx * 16 + 8 - plan.cx, cz * 16 + 8 - plan.cz)
            if (d < WILD_FULL) continue
            for (const a of plan.wild.herdAt(cx, cz)) {
              if (Object.keys(serv.entities).length >= MAX_ENTITIES) return
              const col = plan.column(a.x, a.z)
              if (col.water > 0 || col.top !== 'grass_block') continue
              const at = new Vec3(a.x + 0.5, col.height + 1, a.z + 0.5)
              await player.world.getColumnAt(at)
              const mob = serv.spawnMob(serv.registry.entitiesByName[a.name].id, player.world, at, { yaw: (((a.x * 37 + a.z * 11) % 256) + 256) % 256 - 128 })
              mob.health = HEALTH[a.name] || mob.health
            }
          }
        }
      }
    } catch (err) {
      serv.warn?.(`wild animals: ${err && err.stack}`)
    } finally {
      busy = false
    }
  }

  serv.piano.onWorldReady(() => {
    const timer = setInterval(() => { populate() }, EVERY_MS)
    timer.unref()
  })
}
