'use strict'
// Packets to a player leave in one system call per event-loop turn, not one each.
//
// flying-squid relays every move of a player to every other player near it: with 50
// walking bodies on a server that is ~1,000 packets a second to each of them, and
// minecraft-protocol hands each framed packet to the socket on its own (one `write`
// system call per packet). A CPU profile of a 100-agent, 2-shard village
// found each server busy without a break for 33-35 s at a time, 63% of it in the
// socket's `writeBuffer`; no keep-alive answer was read meanwhile, and every player
// was timed out at once.
//
// Here the framed packets a turn writes to a player's socket are gathered and written
// as one buffer when the turn's I/O is done (setImmediate), or at once when
// FLUSH_BYTES have gathered. (Corking the socket does not do it: once a corked socket
// holds its high-water mark, minecraft-protocol's pipe pauses, and after the uncork the
// rest of the turn's packets flow one by one again.) The bytes and their order do not
// change; `end()` writes what is gathered first, so a kick's reason still arrives; and
// `serv.piano.flushWrites()` writes every player's now (the admin API, before it answers).

const FLUSH_BYTES = 64 * 1024

module.exports.server = function (serv) {
  const pending = new Set()
  // every player's gathered packets, now: the admin API calls it before it answers, so a
  // caller told "done" (a block set, an item given) finds the players sent it, as before
  serv.piano = serv.piano || {}
  serv.piano.flushWrites = () => { for (const flush of [...pending]) flush() }
  serv._server.on('connection', (client) => { if (client.socket) install(client.socket, pending) })
}

function install (socket, pending = new Set()) {
  const write = socket.write.bind(socket)
  const end = socket.end.bind(socket)
  let chunks = []
  let bytes = 0
  let scheduled = false
  socket.once('close', () => pending.delete(flush))

  function flush () {
    scheduled = false
    pending.delete(flush)
    if (chunks.length === 0) return
    const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes)
    chunks = []
    bytes = 0
    if (!socket.destroyed) write(data)
  }

  socket.write = (chunk, encoding, callback) => {
    if (!Buffer.isBuffer(chunk) || encoding !== undefined || callback !== undefined) {
      flush() // anything but a plain buffer goes as it came, after what is gathered
      return write(chunk, encoding, callback)
    }
    chunks.push(chunk)
    bytes += chunk.length
    pending.add(flush)
    if (bytes >= FLUSH_BYTES) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
    return true
  }
  socket.end = (...args) => {
    flush()
    return end(...args)
  }
}

module.exports.install = install
