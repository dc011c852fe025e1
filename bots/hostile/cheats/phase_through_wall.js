'use strict'
// Passing a wall in one packet: a stone wall one block thick on the square; one move from
// just before it to free ground 1.2 blocks past it (the move ends in no block).
const m = require('../lib/movement')

module.exports = {
  what: 'one position packet from one side of a one-block wall to the other (ends on free ground)',
  vanilla: '"moved wrongly": the server moves the player along the way and stops at the wall; the client is sent back',
  versions: null,
  async run (t) {
    const { cheat, at, seen, square } = await m.cheatAndObserver(t, 'phase', { x: 0.5, z: 0 })
    const wall = await m.wall(t, cheat, square)
    try {
      const sent = m.positionsSent(cheat)
      const to = { x: wall.x + 1.5, y: at.y, z: at.z }
      m.move(cheat, to)
      await t.sync(cheat)
      const after = await m.serverPosition(t, cheat.username)
      await m.marker(t, cheat, seen, after, -0.25)
      const toldX = Math.max(...seen.positions.map(p => p.x))
      return {
        refused: after.x < wall.x && toldX < wall.x && sent.length > 0,
        detail: { wallX: wall.x, claimedX: to.x, serverX: +after.x.toFixed(2), otherPlayerToldX: +toldX.toFixed(2), putBacks: sent.length }
      }
    } finally {
      await wall.remove()
    }
  }
}
