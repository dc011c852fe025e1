'use strict'
// An entity attacked from 10 blocks away: the attacker sends an attack on another player
// standing 10 blocks from it, in the served version's form (use_entity with mouse 1, or the
// `attack` packet where the version's protocol has one: 26.1's use_entity has no attack).
const mcData = require('minecraft-data')
const inv = require('../lib/inventory')

module.exports = {
  what: 'attacks another player standing 10 blocks away (use_entity attack, 26.1: attack)',
  vanilla: 'ignored: an entity attacked from beyond reach (1.16: 6 blocks)',
  versions: null,
  async run (t) {
    const victim = await t.join(t.name('victim'))
    const attacker = await t.join(t.name('hitter'))
    const at = await inv.spot(t, victim)
    await inv.teleport(t, attacker, { x: at.x + 0.5, y: at.y, z: at.z + 0.5 + 10 })
    const before = (await t.admin('GET', `/players/${victim.username}`)).health
    const attackPacket = mcData(t.version).protocol.play.toServer.types.packet_attack !== undefined
    for (let i = 0; i < 3; i++) {
      if (attackPacket) attacker.write('attack', { entityId: victim.entityId })
      else attacker.write('use_entity', { target: victim.entityId, mouse: 1, sneaking: false })
    }
    await t.sync(attacker)
    await t.sync(victim)
    const after = (await t.admin('GET', `/players/${victim.username}`)).health
    return { refused: before === after, detail: { healthBefore: before, healthAfter: after } }
  }
}
