'use strict'
// Why a player is timed out: each connection that ends with minecraft-protocol's
// "KeepAliveTimeout" (the player answered no keep-alive for 30 s) is logged with what was
// waiting on each side of it, and the server's own event-loop delay is logged when it
// exceeds a second. A line per timeout:
//
//   [piano] stall: Wren timed out (KeepAliveTimeout): 1834 KB queued to it, last packet
//   from it 31.2 s ago, 412 packets written to it since; event loop delay max 180 ms
//
// "queued to it" large and "last packet" old with a small loop delay: the player's own
// host stopped reading and writing (its side is behind); a large loop delay: this server
// was behind every player. The counts are in serv.piano.stalls for the admin API's tests.

const { monitorEventLoopDelay } = require('perf_hooks')

const REPORT_EVERY_MS = 10000
const LOOP_DELAY_LOG_MS = 1000

module.exports.server = function (serv) {
  serv.piano = serv.piano || {}
  const stalls = { timeouts: 0, loopDelayMaxMs: 0 }
  serv.piano.stalls = stalls
  const log = (msg) => console.log(`[piano] stall: ${msg}`)
  const delay = monitorEventLoopDelay({ resolution: 20 })
  delay.enable()
  const timer = setInterval(() => {
    const maxMs = delay.max / 1e6
    stalls.loopDelayMaxMs = Math.max(stalls.loopDelayMaxMs, maxMs)
    if (maxMs >= LOOP_DELAY_LOG_MS) {
      log(`event loop delay max ${Math.round(maxMs)} ms, p99 ${Math.round(delay.percentile(99) / 1e6)} ms over ${REPORT_EVERY_MS / 1000} s, ${serv.players.length} players`)
    }
    delay.reset()
  }, REPORT_EVERY_MS)
  timer.unref()

  serv._server.on('connection', (client) => {
    let lastIn = Date.now()
    let writtenSince = 0
    client.on('packet', () => { lastIn = Date.now(); writtenSince = 0 })
    const write = client.write.bind(client)
    client.write = (name, params) => { writtenSince++; return write(name, params) }
    client.pianoOnWrite = () => { writtenSince++ } // a move framed past client.write (shared_packets.js)
    const end = client.end.bind(client)
    client.end = (reason, ...rest) => {
      if (String(reason) === 'KeepAliveTimeout') {
        stalls.timeouts++
        const queued = (client.socket ? client.socket.writableLength : 0) +
          (client.framer ? client.framer.readableLength || 0 : 0)
        log(`${client.username} timed out (KeepAliveTimeout): ${Math.round(queued / 1024)} KB queued to it, ` +
          `last packet from it ${((Date.now() - lastIn) / 1000).toFixed(1)} s ago, ${writtenSince} packets written to it since; ` +
          `event loop delay max ${Math.round(delay.max / 1e6)} ms`)
      }
      return end(reason, ...rest)
    }
  })
}
