'use strict'
// The generated village at run time: players spawn on the village square
// (not at flying-squid's random 0..30 spot), and the pasture's animals are
// spawned (no AI: they stand where they are put) once the world is ready.

const Vec3 = require('vec3').Vec3

const HEALTH = { cow: 10, pig: 10, sheep: 8, chicken: 4, rabbit: 3 }

module.exports.server = function (serv, settings) {
  const piano = settings.piano || {}
  let plan = null
  const getPlan = () => {
    if (!plan) {
      const { getPlan } = require('../generator')
      plan = getPlan({ seed: piano.seed ?? 0, layout: piano.layout || {}, registry: serv.registry }).summary()
    }
    return plan
  }
  serv.piano.plan = getPlan

  serv.once('pluginsReady', () => {
    serv.getSpawnPoint = async () => {
      const s = getPlan().spawn
      const jx = Math.floor(Math.random() * 7) - 3
      const jz = Math.floor(Math.random() * 7) - 3
      return new Vec3(s.x + jx + 0.5, s.y, s.z + jz + 0.5)
    }
  })

  serv.piano.onWorldReady(async () => {
    const animals = getPlan().animals || []
    let n = 0
    for (const a of animals) {
      const type = serv.registry.entitiesByName[a.name]
      if (!type) continue
      try {
        await serv.overworld.getColumnAt(new Vec3(a.x, a.y, a.z))
        const mob = serv.spawnMob(type.id, serv.overworld, new Vec3(a.x, a.y, a.z), { yaw: ((n * 67) % 256) - 128 })
        mob.health = HEALTH[a.name] || mob.health // vanilla max health (flying-squid: 20 for all)
        n++
      } catch (err) {
        serv.warn?.(`could not spawn ${a.name}: ${err}`)
      }
    }
    serv.info?.(`spawned ${n} animals in the pasture`)
  })
}
