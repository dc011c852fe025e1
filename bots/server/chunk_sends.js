'use strict'
// A chunk column sent to many players is dumped, serialized and compressed once.
//
// flying-squid sends a column to each player on its own: the column dumped (its sections,
// then its light: prismarine-chunk's dump and dumpLight), the map_chunk packet serialized,
// then deflated, all of it again for every player who comes near: in a crowded village a
// large share of the server's CPU (bots/body/BENCH.md has the profile), for bodies that
// mostly stand among the same columns.
// Here:
// - a column keeps its last dump and light dump until something changes it (any method of
//   the column that writes blocks, light, biomes or block entities, or loads it anew);
// - a map_chunk whose data is such a kept dump is serialized once per protocol and per
//   packet's other fields (position, heightmaps, masks, trust flags), and every player is
//   handed the same bytes;
// - those bytes are deflated once per compression threshold.
// Every player is still sent the packet flying-squid sends, in the same place of its
// stream (each passes through its own serializer, compressor and framer in order): only
// the work of making the bytes is shared. Installed by server/host.js before flying-squid
// starts.
const CHUNK = require.resolve('prismarine-chunk')
const { Serializer } = require('protodef')
const compression = require('minecraft-protocol/src/transforms/compression')

// column methods that change what dump() or dumpLight() give
const MUTATORS = ['setBlock', 'setBlockType', 'setBlockData', 'setBlockStateId', 'setBlockLight',
  'setSkyLight', 'setBiome', 'setBlockEntity', 'removeBlockEntity', 'load', 'loadBiomes',
  'loadLight', 'loadParsedLight', 'loadSection', '_loadBlockLightNibbles', '_loadSkyLightNibbles',
  'initialize']

const stats = { dumps: 0, dumpsKept: 0, serialized: 0, serializedKept: 0, deflated: 0, deflatedKept: 0 }
const keptDumps = new WeakSet() // chunk data buffers that a column keeps (not changed in place)
const patched = new WeakSet()

function patchColumnClass (Chunk) {
  const proto = Chunk && Chunk.prototype
  if (!proto || patched.has(proto) || typeof proto.dump !== 'function') return false
  patched.add(proto)
  const dump = proto.dump
  const dumpLight = proto.dumpLight
  proto.dump = function (...args) {
    if (args.length) return dump.apply(this, args)
    if (this.pianoDump === undefined) {
      this.pianoDump = dump.call(this)
      if (Buffer.isBuffer(this.pianoDump)) keptDumps.add(this.pianoDump)
      stats.dumps++
    } else stats.dumpsKept++
    return this.pianoDump
  }
  if (typeof dumpLight === 'function') {
    proto.dumpLight = function (...args) {
      if (args.length) return dumpLight.apply(this, args)
      if (this.pianoDumpLight === undefined) this.pianoDumpLight = dumpLight.call(this)
      return this.pianoDumpLight
    }
  }
  for (const name of MUTATORS) {
    const real = proto[name]
    if (typeof real !== 'function') continue
    proto[name] = function (...args) {
      this.pianoDump = undefined
      this.pianoDumpLight = undefined
      return real.apply(this, args)
    }
  }
  return true
}

// the map_chunk fields besides the big ones: equal signatures, equal packets
const BIG = new Set(['chunkData', 'skyLight', 'blockLight'])
const signature = (params) => JSON.stringify(params, (k, v) => (BIG.has(k) ? undefined : v))

// chunk data buffer -> [{ proto, sig, skyLight, blockLight, buf }]
const serialized = new WeakMap()
const shared = new WeakSet() // serialized packets handed to more than one player

function patchSerializer () {
  const create = Serializer.prototype.createPacketBuffer
  Serializer.prototype.createPacketBuffer = function (packet) {
    const params = packet && packet.name === 'map_chunk' ? packet.params : null
    const data = params && params.chunkData
    if (!data || !keptDumps.has(data)) return create.call(this, packet)
    const sig = signature(params)
    let list = serialized.get(data)
    if (!list) serialized.set(data, (list = []))
    for (const e of list) {
      if (e.proto === this.proto && e.sig === sig && e.skyLight === params.skyLight && e.blockLight === params.blockLight) {
        stats.serializedKept++
        shared.add(e.buf)
        return e.buf
      }
    }
    const buf = create.call(this, packet)
    list.push({ proto: this.proto, sig, skyLight: params.skyLight, blockLight: params.blockLight, buf })
    stats.serialized++
    shared.add(buf)
    return buf
  }
}

// serialized packet -> Map(threshold -> the compressor's output)
const deflated = new WeakMap()

function patchCompressor () {
  const proto = Object.getPrototypeOf(compression.createCompressor(256))
  const transform = proto._transform
  proto._transform = function (chunk, enc, cb) {
    if (!shared.has(chunk) || chunk.length < this.compressionThreshold) return transform.call(this, chunk, enc, cb)
    let byThreshold = deflated.get(chunk)
    if (!byThreshold) deflated.set(chunk, (byThreshold = new Map()))
    const out = byThreshold.get(this.compressionThreshold)
    if (out) {
      stats.deflatedKept++
      this.push(out)
      return cb()
    }
    // the compressor's own work, its output kept (the framer copies it into each frame)
    const push = this.push
    this.push = (buf) => {
      byThreshold.set(this.compressionThreshold, buf)
      stats.deflated++
      return push.call(this, buf)
    }
    try {
      return transform.call(this, chunk, enc, cb)
    } finally {
      this.push = push
    }
  }
}

let installed = false

/** From now on, columns keep their dumps and map_chunk packets are made once for all players. */
function install () {
  if (installed) return false
  installed = true
  const loader = require(CHUNK)
  if (!loader.pianoKeptDumps) {
    const wrapped = function (registryOrVersion) {
      const Chunk = loader(registryOrVersion)
      patchColumnClass(Chunk)
      return Chunk
    }
    Object.assign(wrapped, loader)
    wrapped.pianoKeptDumps = true
    require.cache[CHUNK].exports = wrapped
  }
  patchSerializer()
  patchCompressor()
  return true
}

module.exports = { install, patchColumnClass, stats }
