'use strict'
// Passing a wall in one packet: a stone wall one block thick on the square; one move from
// just before it to free ground 1.2 blocks past it (the move ends in no block).
const m = require('../lib/movement')

module.exports = {
  what: 'one position packet from one side of a one-block wall to the other (ends on free ground)',
  vanilla: '"moved wrongly": the server moves the player along the way and stops at the wall; the client is sent back',
  versions: null,
  async run (t) {
    const r = await m.moveAtWall(t, 'phase', 1.5)
    return {
      refused: r.after.x < r.wallX && r.toldX < r.wallX && r.putBacks > 0,
      detail: { wallX: r.wallX, claimedX: r.to.x, serverX: +r.after.x.toFixed(2), otherPlayerToldX: +r.toldX.toFixed(2), putBacks: r.putBacks }
    }
  }
}
