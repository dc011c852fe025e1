'use strict'
// Sustained moves faster than sprinting: one block per packet, two packets every 50 ms
// (40 blocks/s; sprinting is 5.6, sprint-jumping ~7.1), back and forth across the square
// for 5 s. No packet is long (vanilla's per-packet bound is 10 blocks): only a budget over
// time refuses it.
const m = require('../lib/movement')

const SECONDS = 5
const STEP = 1 // blocks per packet
const PER_TURN = 2 // packets every 50 ms

module.exports = {
  what: 'moves at 40 blocks/s (1 block per packet, 40 packets/s) for 5 s across the square',
  vanilla: 'not refused by vanilla\'s per-packet bound alone; ours: "moved too quickly" once a budget over time (10 blocks/s, 24 blocks of burst) is spent, the client is sent back',
  versions: null,
  async run (t) {
    const { cheat, at, seen } = await m.cheatAndObserver(t, 'speed')
    const sent = m.positionsSent(cheat)
    let x = at.x
    let dir = 1
    let claimed = 0
    const t0 = Date.now()
    while (Date.now() - t0 < SECONDS * 1000) {
      for (let i = 0; i < PER_TURN; i++) {
        if (Math.abs(x + dir * STEP - at.x) > 3) dir = -dir
        x += dir * STEP
        claimed += STEP
        m.move(cheat, { x, y: at.y, z: at.z })
      }
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    await t.sync(cheat)
    const seconds = (Date.now() - t0) / 1000
    await m.marker(t, cheat, seen, await m.serverPosition(t, cheat.username), 0.25)
    // the path the other player was told, marker move excluded
    const path = [at, ...seen.positions.slice(0, -1)]
    let told = 0
    for (let i = 1; i < path.length; i++) told += Math.hypot(path[i].x - path[i - 1].x, path[i].z - path[i - 1].z)
    return {
      refused: told < claimed / 2 && sent.length > 0,
      detail: { seconds: +seconds.toFixed(2), claimed, otherPlayerToldPath: +told.toFixed(2), putBacks: sent.length }
    }
  }
}
