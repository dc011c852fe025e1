'use strict'
// Killed mobs: removed for clients (flying-squid only sent the death
// animation, leaving a ghost entity) and dropping vanilla-like loot
// (cow -> beef, leather; pig -> porkchop; sheep -> mutton, wool; chicken ->
// chicken, feather).

const Vec3 = require('vec3').Vec3

const LOOT = {
  cow: [['beef', 1, 3], ['leather', 0, 2]],
  pig: [['porkchop', 1, 3]],
  sheep: [['mutton', 1, 2], ['white_wool', 1, 1]],
  chicken: [['chicken', 1, 1], ['feather', 0, 2]],
  rabbit: [['rabbit', 0, 1], ['rabbit_hide', 0, 1]],
  zombie: [['rotten_flesh', 0, 2]],
  skeleton: [['bone', 0, 2], ['arrow', 0, 2]],
  spider: [['string', 0, 2]]
}

module.exports.server = function (serv) {
  const registry = serv.registry
  const itemEntity = registry.entitiesByName.item.id
  serv.on('newEntity', (entity) => {
    if (entity.type !== 'mob' || typeof entity.takeDamage !== 'function') return
    const original = entity.takeDamage
    entity.takeDamage = function (opts) {
      const result = original.call(this, opts)
      if (entity.health <= 0 && !entity.pianoDead) {
        entity.pianoDead = true
        const where = entity.position.clone()
        for (const [name, lo, hi] of LOOT[entity.name] || []) {
          const count = lo + Math.floor(Math.random() * (hi - lo + 1))
          if (count <= 0 || !registry.itemsByName[name]) continue
          serv.spawnObject(itemEntity, entity.world, where.offset(0, 0.5, 0), {
            velocity: new Vec3(Math.random() * 2 - 1, 2, Math.random() * 2 - 1),
            itemId: registry.itemsByName[name].id,
            itemCount: count,
            pickupTime: 500,
            deathTime: 5 * 60 * 1000
          })
        }
        // let the death animation play, then remove the body
        setTimeout(() => {
          entity._writeOthersNearby('entity_destroy', { entityIds: [entity.id] })
          delete serv.entities[entity.id]
        }, 1000)
      }
      return result
    }
  })
}
