'use strict'
// Combat with mobs: hits deal the held weapon's damage (vanilla 1.16 attack
// damage; flying-squid always dealt 1) with a moderate knockback (flying-squid
// threw mobs 10-20 blocks), and killed mobs are removed for clients
// (flying-squid only sent the death animation, leaving a ghost entity) and
// drop vanilla-like loot (cow -> beef, leather; pig -> porkchop; sheep ->
// mutton, wool; chicken -> chicken, feather).

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

const WEAPON_DAMAGE = {
  wooden_sword: 4, golden_sword: 4, stone_sword: 5, iron_sword: 6, diamond_sword: 7, netherite_sword: 8,
  wooden_axe: 7, golden_axe: 7, stone_axe: 9, iron_axe: 9, diamond_axe: 9, netherite_axe: 10,
  wooden_pickaxe: 2, golden_pickaxe: 2, stone_pickaxe: 3, iron_pickaxe: 4, diamond_pickaxe: 5,
  wooden_shovel: 2.5, golden_shovel: 2.5, stone_shovel: 3.5, iron_shovel: 4.5, diamond_shovel: 5.5,
  trident: 9
}

module.exports.player = function (player, serv) {
  player.on('attack_cancel', (data) => {
    if (!data || !data.attackedEntity) return
    const held = player.inventory.slots[36 + player.heldItemSlot]
    const name = held ? serv.registry.items[held.type]?.name : null
    data.damage = WEAPON_DAMAGE[name] || 1
    const away = data.attackedEntity.position.minus(player.position)
    const len = Math.hypot(away.x, away.z) || 1
    data.velocity = new Vec3(away.x / len * 3, 2, away.z / len * 3)
  })
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
