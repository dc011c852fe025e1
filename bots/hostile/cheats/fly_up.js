'use strict'
// Flying up: from the square, 0.25 block up every 50 ms to 10 blocks above the ground, then
// hovering there, until the server drops the client (at most 10 s).
const m = require('../lib/movement')

module.exports = {
  what: 'flies straight up 10 blocks from the ground (0.25 block per packet), then hovers there',
  vanilla: 'kicked after 80 ticks floating: "Flying is not enabled on this server"; ours also sends the client back once it rises 1.5 blocks with nothing around',
  versions: null,
  async run (t) {
    const { cheat, at, seen } = await m.cheatAndObserver(t, 'flyup')
    let y = at.y
    let highest = null // the server's y once the client claims the top
    const t0 = Date.now()
    while (!cheat.ended && Date.now() - t0 < 10000) {
      if (y < at.y + 10) y += 0.25
      m.move(cheat, { x: at.x, y, z: at.z }, false)
      if (y >= at.y + 10 && highest === null) {
        await t.sync(cheat)
        highest = (await m.serverPosition(t, cheat.username)).y
      }
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    const told = m.farthest(seen.positions, at, 'y')
    const kicked = cheat.kicked || null
    return {
      refused: highest !== null && highest - at.y < 2.5 && told < 2.5 && /flying is not enabled/i.test(kicked || ''),
      detail: { claimedRise: y - at.y, serverRiseAtTop: highest === null ? null : +(highest - at.y).toFixed(2), otherPlayerToldRise: +told.toFixed(2), kicked, afterMs: Date.now() - t0 }
    }
  }
}
