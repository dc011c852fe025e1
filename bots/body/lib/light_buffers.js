'use strict'
// Chunk light read and written as byte strings. minecraft-data describes the light of a
// chunk (map_chunk and update_light, 1.17 on: one 2048-byte array per section, sky and
// block) as an array of arrays of u8, so minecraft-protocol read and wrote every byte as an
// element of a JS array: 26 sections x 2 x 2048 calls per chunk column, for every body that
// is sent the chunk and for the server writing it to each of them (bots/body/BENCH.md has
// the profile). A u8 array with
// a varint count is, on the wire, exactly a buffer with a varint count: here the two fields
// are described as arrays of buffers, so a section's light is one slice (read) or one copy
// (write). The bytes sent and received are the same; prismarine-chunk's loadParsedLight
// takes each section with Buffer.from, which reads a Buffer as it read the array.
// Must run before minecraft-protocol compiles the version's play protocol (the first client
// or server of that version in the process): body.js before each bot, server/host.js
// before flying-squid starts.
const minecraftData = require('minecraft-data')

const PACKETS = ['packet_map_chunk', 'packet_update_light']
const FIELDS = ['skyLight', 'blockLight']
const BYTES = ['array', { countType: 'varint', type: 'u8' }]
const AS_BUFFERS = ['array', { countType: 'varint', type: ['buffer', { countType: 'varint' }] }]

const done = new Set()

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)

/**
 * Describe the light fields of ``version``'s clientbound play packets as arrays of buffers
 * (in minecraft-data's protocol object, which minecraft-protocol compiles). Returns the
 * number of fields changed (0 when the version has none of that shape, or was done).
 */
function install (version) {
  if (done.has(version)) return 0
  done.add(version)
  const data = minecraftData(version)
  const types = data && data.protocol && data.protocol.play && data.protocol.play.toClient && data.protocol.play.toClient.types
  if (!types) return 0
  let changed = 0
  for (const name of PACKETS) {
    const def = types[name]
    if (!Array.isArray(def) || def[0] !== 'container') continue
    for (const field of def[1]) {
      if (FIELDS.includes(field.name) && Array.isArray(field.type) && field.type[0] === 'array' &&
          field.type[1].countType === 'varint' && same(field.type[1].type, BYTES)) {
        field.type = AS_BUFFERS
        changed++
      }
    }
  }
  return changed
}

module.exports = { install }
