'use strict'
// A client's round trip: a plugin message on channel `piano:sync` is answered with the same
// bytes once the server has handled what the client sent before it. Packets are read in
// order; a handler that waits on the world (a block placed, a chest opened) finishes in
// the same turn of the event loop when its chunk is loaded, so the answer goes after
// setImmediate, behind every such handler and behind the packets they wrote. The
// hostile-client suite (bots/hostile) reads the server's state only after such a round
// trip, never after a sleep. Harmless to anyone: it echoes at most MAX_BYTES.

const CHANNEL = 'piano:sync'
const MAX_BYTES = 64

module.exports.player = function (player) {
  player._client.on('custom_payload', ({ channel, data } = {}) => {
    if (channel !== CHANNEL || !Buffer.isBuffer(data) || data.length > MAX_BYTES) return
    setImmediate(() => setImmediate(() => {
      try { player._client.write('custom_payload', { channel: CHANNEL, data }) } catch (err) {}
    }))
  })
}

module.exports.CHANNEL = CHANNEL
