'use strict'
// The network compression threshold, as vanilla's server.properties sets it
// (`network-compression-threshold`): a packet of at least that many bytes is deflated, and
// -1 compresses nothing (the login sends no set_compression, every frame is plain). A client
// is told the threshold at login and keeps to it, whichever it is; vanilla clients, mineflayer
// and minecraft-protocol's client accept both.
//
// minecraft-protocol's login always asks for 256. On a server bound to loopback every packet
// above 256 bytes was deflated by the server and inflated again by each body on the same
// machine, with no network to spare; so `settings.compressionThreshold` defaults to -1 there,
// and to vanilla's 256 on any other address (players over a network). An explicit value wins.

const VANILLA = 256

function isLoopback (host) {
  return host === 'localhost' || host === '::1' || /^127\./.test(String(host))
}

/** The threshold a server with these settings (host.js's) asks its players for. */
function thresholdOf (piano) {
  const t = piano.compressionThreshold
  if (t === undefined || t === null) return isLoopback(piano.host ?? '127.0.0.1') ? -1 : VANILLA
  if (!Number.isInteger(t) || t < -1) throw new Error(`compressionThreshold must be -1 or a byte count, not ${t}`)
  return t
}

module.exports.server = function (serv, settings) {
  const threshold = thresholdOf(settings.piano || {})
  serv.piano = serv.piano || {}
  serv.piano.compressionThreshold = threshold
  if (threshold === VANILLA) return
  const options = serv._server.options
  const before = options.beforeLogin
  // called by minecraft-protocol's login right before it writes `compress` (threshold 256) and
  // sets the client's compressionThreshold to 256: both are replaced, once, for this client
  options.beforeLogin = (client) => {
    if (before) before(client)
    const write = client.write
    client.write = function (name, params) {
      if (name !== 'compress') return write.call(this, name, params)
      client.write = write
      // the 256 the login sets next is taken as this server's threshold
      Object.defineProperty(client, 'compressionThreshold', {
        configurable: true,
        get () { return -2 },
        set () {
          delete client.compressionThreshold
          if (threshold >= 0) client.compressionThreshold = threshold
        }
      })
      if (threshold < 0) return undefined
      return write.call(this, name, { ...params, threshold })
    }
  }
}

module.exports.thresholdOf = thresholdOf
