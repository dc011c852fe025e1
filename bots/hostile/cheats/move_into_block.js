'use strict'
// Moving into a solid block: one move from beside a stone wall to inside it (the player's
// box entirely in the wall's blocks).
const m = require('../lib/movement')

module.exports = {
  what: 'one position packet into a solid block beside the player',
  vanilla: '"moved wrongly": a move into a block the player was not in is not applied; the client is sent back',
  versions: null,
  async run (t) {
    const r = await m.moveAtWall(t, 'inblock', 0.5)
    return {
      refused: Math.abs(r.after.x - r.at.x) < 0.01 && r.toldX < r.wallX - 0.29 && r.putBacks > 0 && r.resent > 0,
      detail: { wallX: r.wallX, claimedX: r.to.x, serverX: +r.after.x.toFixed(2), otherPlayerToldX: +r.toldX.toFixed(2), putBacks: r.putBacks, blocksResent: r.resent }
    }
  }
}
