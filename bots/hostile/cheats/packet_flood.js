'use strict'
// A client writes 20,000 small packets as fast as it can (arm swings) while a bystander
// measures its own round trips and the admin API's answer time (the server's loop).
const names = require('../lib/names')

const PACKETS = 20000

module.exports = {
  what: `a client writes ${PACKETS} packets at once`,
  vanilla: "with rate-limit set, kicked (disconnect.exceeded_packet_rate); the server and others keep their pace",
  versions: null,
  async run (t) {
    const bystander = await t.join(t.name('bystand'))
    const flooder = await t.join(t.name('flooder'))
    const { result: reason, lag } = await names.lagDuring(t, bystander, async () => {
      // in bursts of 1000 a turn, so the bystander's own measurements in this process go on
      for (let i = 0; i < PACKETS && !flooder.ended; i++) {
        flooder.write('arm_animation', { hand: 0 })
        if (i % 1000 === 999) await new Promise(resolve => setImmediate(resolve))
      }
      return names.droppedWithin(flooder, 5000)
    })
    const refusals = (await t.admin('GET', '/refusals')).byKind || {}
    const health = await t.admin('GET', '/health')
    return {
      refused: reason !== null && !bystander.ended && health.ok === true && lag.bystanderRttDuringMaxMs < 2000,
      detail: { reason, packetsWritten: PACKETS, bystanderStillOnline: !bystander.ended, packetFloodRefusals: refusals.packet_flood || 0, ...lag }
    }
  }
}
