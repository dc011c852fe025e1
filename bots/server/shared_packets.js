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
const { Serializer } = require('protodef')

const stats = { serialized: 0, kept: 0 }
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

module.exports = { install, share, stats }
