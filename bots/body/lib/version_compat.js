'use strict'
// What mineflayer 4.39 reads wrong at the versions it lists as tested, mended per body.
// - From 1.21.9 velocities (`entity_velocity`, `spawn_entity`) are sent in blocks per tick
//   (lpVec3); mineflayer still divides them by 8000 as it did the 1/8000-block units of older
//   versions, so a knockback or a thrown item reached it 8000 times too slow. The values are
//   put in the old units before mineflayer reads them.

function install (bot) {
  let lpVelocity = null
  const isLp = () => {
    if (lpVelocity === null) {
      const packet = bot.registry?.protocol?.play?.toClient?.types?.packet_entity_velocity
      const field = Array.isArray(packet) && packet[0] === 'container' ? packet[1].find(f => f.name === 'velocity') : null
      lpVelocity = !!field && field.type === 'lpVec3'
    }
    return lpVelocity
  }
  const toOldUnits = (packet) => {
    if (packet && packet.velocity && isLp()) {
      const v = packet.velocity
      packet.velocity = { x: v.x * 8000, y: v.y * 8000, z: v.z * 8000 }
    }
  }
  bot._client.prependListener('entity_velocity', toOldUnits)
  bot._client.prependListener('spawn_entity', toOldUnits)
}

module.exports = { install }
