'use strict'
// Moving into a solid block: one move from beside a stone wall to inside it (the player's
// box entirely in the wall's blocks).
const m = require('../lib/movement')

module.exports = {
  what: 'one position packet into a solid block beside the player',
  vanilla: '"moved wrongly": a move into a block the player was not in is not applied; the client is sent back',
  versions: null,
  async run (t) {
    const { cheat, at, seen, square } = await m.cheatAndObserver(t, 'inblock', { x: 0.5, z: 0 })
    const wall = await m.wall(t, cheat, square)
    try {
      const sent = m.positionsSent(cheat)
      const resent = [] // the wall's blocks sent back to the cheater: its world is corrected too
      cheat.on('block_change', (p) => { if (p.location && p.location.x === wall.x) resent.push(p.location) })
      const to = { x: wall.x + 0.5, y: at.y, z: at.z }
      m.move(cheat, to)
      await t.sync(cheat)
      const after = await m.serverPosition(t, cheat.username)
      await m.marker(t, cheat, seen, after, -0.25)
      const toldX = Math.max(...seen.positions.map(p => p.x))
      return {
        refused: Math.abs(after.x - at.x) < 0.01 && toldX < wall.x - 0.29 && sent.length > 0 && resent.length > 0,
        detail: { wallX: wall.x, claimedX: to.x, serverX: +after.x.toFixed(2), otherPlayerToldX: +toldX.toFixed(2), putBacks: sent.length, blocksResent: resent.length }
      }
    } finally {
      await wall.remove()
    }
  }
}
