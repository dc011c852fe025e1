'use strict'
// Hovering: one block above the square (a jump's height, so no single move is refused),
// then drifting sideways at that height, never falling, until the server drops the client
// (at most 10 s).
const m = require('../lib/movement')

module.exports = {
  what: 'hovers one block above the ground, drifting sideways, never falling',
  vanilla: 'kicked after 80 ticks floating: "Flying is not enabled on this server"',
  versions: null,
  async run (t) {
    const { cheat, at } = await m.cheatAndObserver(t, 'hover')
    const t0 = Date.now()
    let x = at.x
    let dir = 1
    let ticks = 0
    while (!cheat.ended && Date.now() - t0 < 10000) {
      if (Math.abs(x + dir * 0.05 - at.x) > 2) dir = -dir
      x += dir * 0.05
      m.move(cheat, { x, y: at.y + 1, z: at.z }, false)
      ticks++
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    const kicked = cheat.kicked || null
    return {
      refused: /flying is not enabled/i.test(kicked || ''),
      detail: { kicked, afterTicks: ticks, afterMs: Date.now() - t0 }
    }
  }
}
