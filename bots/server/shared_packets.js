'use strict'
// A packet written to many players is serialized once.
//
// The entity tracker (plugins/tracking.js) tells every player tracking an entity the same
// move (the same steps from the same position, the same look) at each of the entity's
// updates: in a crowd every move went through protodef's serializer once per player
// watching. Here the tracker hands every player the same params object (`share(params)`),
// and the serializer, asked for a shared object's bytes again with the same protocol and
// packet name, gives back the bytes it made the first time. Each player's packet still
// passes its own compressor and framer, in its place in the stream; only the serializing is
// shared. A shared object must not change once shared (the tracker makes a new one per
// update). Installed by server/host.js before flying-squid starts.
//
// `writeFramed(client, name, params)` goes one step further for the tracker's moves: the
// frame (length, the compressor's "not compressed" mark when the client has a compressor, the
// packet) is made once per shared object, protocol and threshold, and written to each
// player's socket as it is, past the player's serializer, compressor and framer streams
// (three stream writes and two copies a packet). Only when those streams hold nothing (no
// packet of the player's is still on its way, so the frame takes its place in order), without
// encryption, and for a packet under the compression threshold; otherwise, and for a client
// that ended, the packet goes by `client.write` as any other. The player's own `write` wrappers
// (server/plugins) are passed by: none of them changes or watches a relative move, a look or
// a head turn (a teleport, which versions.js reshapes, goes by `client.write`).
const { Serializer, types: { varint } } = require('protodef')

const sizeOfVarInt = varint[2]
const writeVarInt = varint[1]
const stats = { serialized: 0, kept: 0 }
const framing = { framed: 0, kept: 0, passed: 0 }
// shared params object -> [{ proto, name, buf }]
const made = new WeakMap()
let installed = false

/** Mark ``params`` (a packet's fields, not changed from now on) as written to many players. */
function share (params) {
  if (installed && !made.has(params)) made.set(params, [])
  return params
}

/** From now on, a shared packet is serialized once per protocol and packet name. */
function install () {
  if (installed) return false
  installed = true
  const create = Serializer.prototype.createPacketBuffer
  Serializer.prototype.createPacketBuffer = function (packet) {
    const list = packet && packet.params ? made.get(packet.params) : undefined
    if (list === undefined) return create.call(this, packet)
    for (const e of list) {
      if (e.proto === this.proto && e.name === packet.name) {
        stats.kept++
        return e.buf
      }
    }
    const buf = create.call(this, packet)
    list.push({ proto: this.proto, name: packet.name, buf })
    stats.serialized++
    return buf
  }
  return true
}

// shared params object -> [{ proto, name, threshold, frame }]
const frames = new WeakMap()

// a stream with nothing written to it still waiting, nor anything made waiting to be read
const idle = (stream) => stream._writableState.length === 0 && stream._readableState.length === 0 &&
  !stream.destroyed && stream._readableState.flowing !== false

function frameOf (serializer, name, params, threshold) {
  let list = frames.get(params)
  if (!list) frames.set(params, (list = []))
  for (const e of list) {
    if (e.proto === serializer.proto && e.name === name && e.threshold === threshold) {
      framing.kept++
      return e.frame
    }
  }
  const packet = serializer.createPacketBuffer({ name, params })
  if (threshold >= 0 && packet.length >= threshold) return null // deflated: the compressor's own way
  const mark = threshold >= 0 ? 1 : 0 // the compressor's varint 0: "not compressed"
  const length = mark + packet.length
  const frame = Buffer.allocUnsafe(sizeOfVarInt(length) + length)
  let offset = writeVarInt(length, frame, 0)
  if (mark) offset = writeVarInt(0, frame, offset)
  packet.copy(frame, offset)
  list.push({ proto: serializer.proto, name, threshold, frame })
  framing.framed++
  return frame
}

/** Write a shared packet to ``client`` as its streams would frame it, in its place in order. */
function writeFramed (client, name, params) {
  const serializer = client.serializer
  const compressor = client.compressor
  const socket = client.socket
  if (!installed || !made.has(params) || client.ended || client.cipher || !socket || socket.destroyed ||
      !serializer || !serializer.writable || !idle(serializer) || (compressor && !idle(compressor)) || !idle(client.framer)) {
    framing.passed++
    return client.write(name, params)
  }
  const frame = frameOf(serializer, name, params, compressor ? compressor.compressionThreshold : -1)
  if (frame === null) {
    framing.passed++
    return client.write(name, params)
  }
  if (client.pianoOnWrite) client.pianoOnWrite(name)
  socket.write(frame)
}

module.exports = { install, share, writeFramed, stats, framing }
