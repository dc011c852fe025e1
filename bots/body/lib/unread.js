'use strict'
// Packets a body never reads are not parsed. A walking player turns its head at nearly every
// step, and the server tells every player near it twice (entity_look, entity_head_rotation)
// besides the move itself; mineflayer parsed each (a protodef read, an entity looked up or
// made, an entityMoved event) for yaw and pitch of other players, which no skill, the
// observation or the pathfinder reads; the arm-swing animation of every dig; and the crack
// stage of every block another player digs (mineflayer built a whole Block for each, for a
// blockBreakProgress event nothing of a body listens to). These packets are dropped after
// framing, before their fields are read: the body is told what a vanilla client is told and
// leaves some of it unread (it perceives less, never more).
const { types: { varint } } = require('protodef')
const minecraftData = require('minecraft-data')

// other entities' yaw and pitch, the head's yaw, arm swings and similar animations, the
// cracks of blocks others dig
const UNREAD = ['entity_look', 'entity_head_rotation', 'animation', 'block_break_animation']

const idsByVersion = new Map()

/** The play-state packet ids (clientbound) of UNREAD at ``version``. */
function unreadIds (version) {
  let ids = idsByVersion.get(version)
  if (ids) return ids
  ids = new Set()
  const data = minecraftData(version)
  const packet = data && data.protocol && data.protocol.play && data.protocol.play.toClient.types.packet
  const field = packet && packet[1] && packet[1].find(f => f.name === 'name')
  const mappings = (field && field.type[1] && field.type[1].mappings) || {}
  for (const [id, name] of Object.entries(mappings)) if (UNREAD.includes(name)) ids.add(Number(id))
  idsByVersion.set(version, ids)
  return ids
}

/** The number of packets ``client`` left unread so far (for tests and the stall log). */
function unreadCount (client) { return client.pianoUnread || 0 }

/**
 * Leave UNREAD packets of ``client`` (minecraft-protocol) unparsed in the play state (all
 * are read again once ``client.pianoReadAll`` is set: a 3D view of the body shows the other
 * players' heads turn). Its deserializer is made anew at each state change, so it is
 * wrapped on each entry to play.
 */
function skipUnread (client) {
  client.pianoUnread = 0
  client.on('state', (state) => {
    if (state !== 'play' || !client.deserializer) return
    const ids = unreadIds(client.version)
    if (ids.size === 0) return
    const deserializer = client.deserializer
    const transform = deserializer._transform
    deserializer._transform = function (chunk, enc, cb) {
      let id = -1
      try { id = varint[0](chunk, 0).value } catch (e) {}
      if (ids.has(id) && !client.pianoReadAll) { client.pianoUnread++; return cb() }
      return transform.call(this, chunk, enc, cb)
    }
  })
}

module.exports = { skipUnread, unreadIds, unreadCount, UNREAD }
