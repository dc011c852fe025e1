'use strict'
// A chunk column's light decoded when the body first reads it. mineflayer decodes the light
// of every column it is sent (map_chunk, update_light: prismarine-chunk's loadParsedLight
// makes a 4-bit array per section and reads the section's 2048 bytes into it) as it
// arrives (a visible share of a body process's CPU in a crowded village), and what the
// bodies read of a column is its blocks (the physics, the path search, the block search and
// the observation read state ids, never light). Here loadParsedLight keeps a copy of what it
// was given and the column decodes it, in the order it came, the first time anything reads
// or writes its light (getBlock, getBlockLight, getSkyLight, the setters, dumpLight, toJson,
// loadSection): the body is told the light as before and reads the same values from it.
// Installed before mineflayer's blocks plugin asks prismarine-chunk for its Chunk class.
const CHUNK = require.resolve('prismarine-chunk')

// the methods of a 1.18+ column that read or write light
const READERS = ['getBlock', 'setBlock', 'getBlockLight', 'getSkyLight', 'setBlockLight', 'setSkyLight',
  'dumpLight', 'toJson', 'loadSection', '_loadBlockLightNibbles', '_loadSkyLightNibbles']

const patched = new WeakSet()

/** The light that ``column`` was given and has not decoded yet, decoded now (in order). */
function decodeLight (column, load) {
  const pending = column.pianoLight
  column.pianoLight = null
  for (const args of pending) load.apply(column, args)
}

const copy = (sections) => (Array.isArray(sections) ? sections.map(s => Buffer.from(s)) : sections)

/** Make ``Chunk`` (a prismarine-chunk column class) decode light when it is first used. */
function patchClass (Chunk) {
  const proto = Chunk && Chunk.prototype
  if (!proto || patched.has(proto) || typeof proto.loadParsedLight !== 'function') return false
  patched.add(proto)
  const load = proto.loadParsedLight
  proto.loadParsedLight = function (skyLight, blockLight, ...masks) {
    // copies: the packet's buffers are slices of the whole packet, which is then not kept
    const args = [copy(skyLight), copy(blockLight), ...masks]
    if (this.pianoLight) this.pianoLight.push(args)
    else this.pianoLight = [args]
  }
  for (const name of READERS) {
    const real = proto[name]
    if (typeof real !== 'function') continue
    proto[name] = function (...args) {
      if (this.pianoLight) decodeLight(this, load)
      return real.apply(this, args)
    }
  }
  return true
}

/** From now on, the Chunk classes prismarine-chunk makes decode light lazily. */
function install () {
  const loader = require(CHUNK)
  if (loader.pianoLazyLight) return false
  function lazyLoader (registryOrVersion) {
    const Chunk = loader(registryOrVersion)
    patchClass(Chunk)
    return Chunk
  }
  Object.assign(lazyLoader, loader) // its other exports (BlobEntry, BlobType)
  lazyLoader.pianoLazyLight = true
  require.cache[CHUNK].exports = lazyLoader
  return true
}

module.exports = { install, patchClass }
