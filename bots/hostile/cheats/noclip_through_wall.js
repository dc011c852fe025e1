'use strict'
// Walking through a wall (noclip): a stone wall one block thick and two high on the square;
// the client walks into it and on through it in steps of 0.2 block.
const m = require('../lib/movement')

module.exports = {
  what: 'walks through a stone wall one block thick in steps of 0.2 block',
  vanilla: '"moved wrongly": a move into a block the player was not in is not applied; the client is sent back',
  versions: null,
  async run (t) {
    const { cheat, at, seen, square } = await m.cheatAndObserver(t, 'noclip', { x: 0.5, z: 0 })
    const wall = await m.wall(t, cheat, square)
    try {
      const sent = m.positionsSent(cheat)
      let x = at.x
      while (x < wall.x + 1.8) {
        x += 0.2
        m.move(cheat, { x, y: at.y, z: at.z })
        await new Promise(resolve => setTimeout(resolve, 50))
      }
      await t.sync(cheat)
      const after = await m.serverPosition(t, cheat.username)
      await m.marker(t, cheat, seen, after, -0.25)
      const toldX = Math.max(...seen.positions.map(p => p.x))
      // the box (0.6 wide) stays out of the wall: its centre west of wall.x - 0.3
      return {
        refused: after.x < wall.x - 0.29 && toldX < wall.x - 0.29 && sent.length > 0,
        detail: { wallX: wall.x, claimedX: +x.toFixed(2), serverX: +after.x.toFixed(2), otherPlayerToldX: +toldX.toFixed(2), putBacks: sent.length }
      }
    } finally {
      await wall.remove()
    }
  }
}
