'use strict'
// One position packet 30 blocks from where the client stands (a "blink"): the last
// finding, not relayed on main but applied on the server.
const m = require('../lib/movement')

module.exports = {
  what: 'one position packet 30 blocks from where the client stands',
  vanilla: '"moved too quickly": the move is not applied; the client is sent back where it was',
  versions: null,
  async run (t) {
    const { cheat, at, seen } = await m.cheatAndObserver(t, 'blink')
    const sent = m.positionsSent(cheat)
    m.move(cheat, { x: at.x + 30, y: at.y, z: at.z })
    await t.sync(cheat)
    const after = await m.serverPosition(t, cheat.username)
    await m.marker(t, cheat, seen, at, -0.25)
    const told = m.farthest(seen.positions, at)
    const moved = Math.hypot(after.x - at.x, after.z - at.z)
    return {
      refused: moved < 0.01 && told < 1 && sent.length > 0,
      detail: { claimed: 30, serverMoved: +moved.toFixed(2), otherPlayerToldMoved: +told.toFixed(2), putBack: sent.map(m.round) }
    }
  }
}
