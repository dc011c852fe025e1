'use strict'
// Four clients each send one malformed frame a modified client could send: a packet id the
// protocol does not have, a packet without even an id, a compressed packet of 64 MiB of zeros
// that claims 300 bytes (minecraft-protocol inflated it on the event loop without a bound),
// and a frame announcing 16 MiB. Each must cost only its sender the connection.
const names = require('../lib/names')

const KINDS = {
  unknown_packet_id: (client) => names.writeFrame(client, Buffer.concat([names.varint(0), names.varint(0x7f), Buffer.from([1, 2, 3])])),
  empty_packet: (client) => client.writeRaw(Buffer.alloc(0)), // not even a packet id
  inflation_bomb: (client, bomb) => names.writeFrame(client, bomb),
  oversized_frame: (client) => client.socket.write(Buffer.concat([names.varint(16 << 20), Buffer.alloc(64 << 10)]))
}

module.exports = {
  what: 'clients send malformed frames: an unknown packet id, an empty packet, an inflation bomb, a 16 MiB frame',
  vanilla: 'the sender is disconnected (bad packet / badly compressed / too big); nobody else notices',
  versions: null,
  async run (t) {
    const bystander = await t.join(t.name('bystand'))
    const bomb = names.bombFrame(300, 64 << 20) // made before the measurement: it takes a while
    const senders = {}
    for (const kind of Object.keys(KINDS)) senders[kind] = await t.join(t.name(kind.slice(0, 8)))
    const outcomes = {}
    const { lag } = await names.lagDuring(t, bystander, async () => {
      for (const [kind, send] of Object.entries(KINDS)) {
        send(senders[kind], bomb)
        outcomes[kind] = await names.droppedWithin(senders[kind], 5000)
      }
    })
    const refusals = (await t.admin('GET', '/refusals')).byKind || {}
    const health = await t.admin('GET', '/health')
    const allDropped = Object.values(outcomes).every(r => r !== null)
    return {
      refused: allDropped && !bystander.ended && health.ok === true && lag.bystanderRttDuringMaxMs < 2000,
      detail: { outcomes, bystanderStillOnline: !bystander.ended, malformedRefusals: refusals.malformed_packet || 0, ...lag }
    }
  }
}
