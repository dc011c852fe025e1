'use strict'
// Frames split off the byte stream without an exception per read. minecraft-protocol's
// Splitter reads each frame's length with protodef's readVarInt, which throws a
// PartialReadError (an Error with its stack) whenever the bytes run out, and they run out at
// the end of nearly every chunk read from the socket: a body process and a server built an
// Error for almost every TCP read (a visible share of their CPU in a crowded village), and the
// Splitter copied its whole buffer on every read. Here the length is peeked without throwing,
// and a read that starts on a frame boundary is split in place. The frames pushed are the
// same bytes in the same order; the legacy server-list ping is handled as before.
// Used by the bodies (body.js) and the server (server/host.js), before any client exists.
const framing = require('minecraft-protocol/src/transforms/framing')
const { types: { varint } } = require('protodef')

const sizeOfVarInt = varint[2]
const writeVarInt = varint[1]
const LEGACY_PING_PACKET_ID = 0xfe
const EMPTY = Buffer.alloc(0)

/**
 * The varint at ``offset`` of ``buf`` as [value, size], or null where protodef's reader
 * throws its PartialReadError (the bytes end first, or over 64 bits of continuation bytes:
 * the Splitter then waits for more bytes). Its value the same as protodef's reader gives.
 */
function peekVarInt (buf, offset) {
  let value = 0
  let shift = 0
  let cursor = offset
  for (;;) {
    if (cursor >= buf.length) return null
    const b = buf[cursor]
    value |= (b & 0x7f) << shift
    cursor++
    if ((b & 0x80) === 0) return [value, cursor - offset]
    shift += 7
    if (shift > 64) return null
  }
}

function transform (chunk, enc, cb) {
  const buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk
  if (this.recognizeLegacyPing && buffer[0] === LEGACY_PING_PACKET_ID) {
    // legacy_server_list_ping follows another format: the packet id is prefixed for the deserializer
    const header = Buffer.alloc(sizeOfVarInt(LEGACY_PING_PACKET_ID))
    writeVarInt(LEGACY_PING_PACKET_ID, header, 0)
    let payload = buffer.slice(1)
    if (payload.length === 0) payload = Buffer.from('\0')
    this.buffer = buffer
    this.push(Buffer.concat([header, payload]))
    return cb()
  }
  let offset = 0
  let head = peekVarInt(buffer, offset)
  while (head !== null && buffer.length >= offset + head[1] + head[0]) {
    this.push(buffer.slice(offset + head[1], offset + head[1] + head[0]))
    offset += head[1] + head[0]
    head = peekVarInt(buffer, offset)
  }
  // what is left is kept apart from the socket's chunk (a copy), as the Splitter kept it
  this.buffer = offset >= buffer.length ? EMPTY : (offset === 0 && buffer !== chunk ? buffer : Buffer.from(buffer.subarray(offset)))
  return cb()
}

let installed = false

/** Splitters made from now on (every client, bodies' and the server's) split this way. */
function install () {
  if (installed) return false
  installed = true
  const proto = Object.getPrototypeOf(framing.createSplitter())
  proto._transform = transform
  return true
}

module.exports = { install, peekVarInt, transform }
