'use strict'
// Vanilla reach. flying-squid checked none, so a modified client could dig through walls,
// open a chest, place a block or hit an animal from any distance. A refused action is
// counted (serv.piano.refuse) and the client is shown the world as it is.
// - digging: the block's centre within 6 blocks of the eyes (a vanilla 1.16 server: feet +
//   1.5 to the block's centre, squared, > 36 is refused); the block is sent back as it is.
// - using a block (opening a chest, furnace or crafting table, placing a block against it):
//   the clicked block's centre within 8 blocks of the feet (vanilla 1.16's use-item-on
//   check, squared distance < 64; 1.20.5+ measures from the eyes to the block's box with
//   4.5 + 1 blocks, which this never refuses where vanilla allows). The clicked and the
//   would-be placed block are sent back, and the hand's slot.
// - attacking an entity: within 6 blocks, feet to feet (vanilla 1.16: squared < 36).
// Our bodies check reach themselves before acting; this holds for any other client.

const Vec3 = require('vec3').Vec3

const MAX_REACH_SQ = 36
const USE_REACH_SQ = 64
const ATTACK_REACH_SQ = 36
const FACES = [[0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0]]

function tooFar (player, position) {
  const p = player.position
  const dx = p.x - (position.x + 0.5)
  const dy = p.y - (position.y + 0.5) + 1.5
  const dz = p.z - (position.z + 0.5)
  return dx * dx + dy * dy + dz * dz > MAX_REACH_SQ
}

function tooFarToUse (player, position) {
  const p = player.position
  const dx = p.x - (position.x + 0.5)
  const dy = p.y - (position.y + 0.5)
  const dz = p.z - (position.z + 0.5)
  return !(dx * dx + dy * dy + dz * dz < USE_REACH_SQ)
}

function tooFarToAttack (player, entity) {
  const p = player.position
  const e = entity.position
  const dx = p.x - e.x
  const dy = p.y - e.y
  const dz = p.z - e.z
  return !(dx * dx + dy * dy + dz * dz < ATTACK_REACH_SQ)
}

module.exports.server = function (serv) {
  serv.piano = serv.piano || {}
  serv.piano.refusedDigs = 0
}

module.exports.player = function (player, serv) {
  const refuse = (kind, detail) => serv.piano.refuse?.(player, kind, detail)
  const where = (v) => `${v.x},${v.y},${v.z}`
  player.on('dug_cancel', ({ position, block }, cancel) => {
    if (!tooFar(player, position)) return
    // not flying-squid's own cancel callback: it sends the block's id where the packet wants
    // a state id (the digger's client saw another block, air for a sponge)
    cancel(false)
    player._client.write('block_change', { location: position, type: block.stateId })
    serv.piano.refusedDigs++
    refuse('reach_dig', `block ${where(position)} from ${where(player.position.floored())}`)
  })

  player.on('attack_cancel', (data, cancel) => {
    if (!data || !data.attackedEntity || !tooFarToAttack(player, data.attackedEntity)) return
    cancel()
    refuse('reach_attack', `entity ${data.attackedEntity.id} at ${where(data.attackedEntity.position.floored())} from ${where(player.position.floored())}`)
  })

  // "use on block" (block_place): flying-squid's listener, and any plugin's, run only when the
  // block is within reach (they are registered after ours: wrapped once every plugin has run)
  player.once('asap', () => {
    const listeners = player._client.listeners('block_place')
    player._client.removeAllListeners('block_place')
    player._client.on('block_place', (packet = {}) => {
      const loc = packet.location
      if (loc && tooFarToUse(player, loc)) {
        refuse('reach_use', `block ${where(loc)} from ${where(player.position.floored())}`)
        resendAround(loc, packet.direction)
        return
      }
      for (const fn of listeners) fn.call(player._client, packet)
    })
  })

  // the clicked block and the one a placement would have filled, as they are; the hand's slot
  async function resendAround (loc, direction) {
    try {
      const clicked = new Vec3(loc.x, loc.y, loc.z)
      const face = FACES[direction]
      for (const pos of face ? [clicked, clicked.offset(...face)] : [clicked]) {
        const stateId = await player.world.getBlockStateId(pos)
        player._client.write('block_change', { location: pos, type: stateId })
      }
      const slot = 36 + (player.heldItemSlot || 0)
      serv.piano.windows?.sendSlot(player, 0, slot, player.inventory.slots[slot] || null)
    } catch (err) {
      serv.warn?.(`reach: could not resend blocks to ${player.username}: ${err}`)
    }
  }
}

module.exports.tooFar = tooFar
module.exports.tooFarToUse = tooFarToUse
