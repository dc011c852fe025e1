'use strict'
// Players whose spawn packet arrives before their tab-list entry.
//
// mineflayer 4.39 ignores `named_entity_spawn` for a UUID it has no `player_info`
// for (and never creates that player later), so a server that sends the two in
// the other order - or late, under load - leaves the bot blind to that player.
// Keep such spawn packets and replay them once the tab-list entry arrives.

const MAX_PENDING = 256

function inject (bot) {
  const pending = new Map() // uuid -> named_entity_spawn packet
  bot._client.on('named_entity_spawn', (packet) => {
    if (packet.playerUUID in bot.uuidToUsername) return
    pending.set(packet.playerUUID, packet)
    if (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value)
  })
  bot._client.on('entity_destroy', (packet) => {
    const gone = new Set(packet.entityIds || [])
    for (const [uuid, p] of pending) if (gone.has(p.entityId)) pending.delete(uuid)
  })
  bot._client.on('player_info', (packet) => {
    if (pending.size === 0) return
    setImmediate(() => { // after mineflayer's own player_info handler
      for (const item of packet.data || []) {
        const uuid = item.uuid || item.UUID
        const spawn = pending.get(uuid)
        if (!spawn || !(uuid in bot.uuidToUsername)) continue
        pending.delete(uuid)
        bot._client.emit('named_entity_spawn', spawn)
      }
    })
  })
}

module.exports = { inject }
