'use strict'
// A chunk column's light written by a server and read back by a body, at ``version``, with
// minecraft-data's light fields as they are ("stock") or as arrays of buffers ("buffers",
// bots/body/lib/light_buffers.js), the body's column decoding it as it comes or when first
// read ("lazy": bots/body/lib/lazy_light.js). Prints the bytes' hash and the light the body reads.
const path = require('path')
const crypto = require('crypto')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const [version, mode] = process.argv.slice(2).map(a => JSON.parse(a))
const modes = mode.split(',')
const changed = modes.includes('buffers') ? req('./body/lib/light_buffers').install(version) : 0
if (modes.includes('lazy')) req('./body/lib/lazy_light').install()
const { createSerializer, createDeserializer } = req('minecraft-protocol/src/transforms/serializer')
const registry = req('prismarine-registry')(version)
const Chunk = req('prismarine-chunk')(registry)
const { Vec3 } = req('vec3')

const column = new Chunk({ minY: registry.supportFeature('tallWorld') ? -64 : 0, worldHeight: registry.supportFeature('tallWorld') ? 384 : 256 })
let seed = 7
const rand = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed }
const minY = column.minY || 0
const points = []
for (let i = 0; i < 400; i++) {
  const p = new Vec3(rand() % 16, minY + (rand() % 120), rand() % 16)
  column.setSkyLight(p, rand() % 16)
  column.setBlockLight(p, rand() % 16)
  points.push(p)
}
const dumped = column.dumpLight()
const params = { chunkX: 3, chunkZ: -2, trustEdges: true, ...dumped }
const server = createSerializer({ state: 'play', isServer: true, version })
const bytes = server.createPacketBuffer({ name: 'update_light', params })
const read = createDeserializer({ state: 'play', isServer: false, version }).parsePacketBuffer(bytes).data.params
const body = new Chunk({ minY: column.minY, worldHeight: column.worldHeight })
body.loadParsedLight(read.skyLight, read.blockLight, read.skyLightMask, read.blockLightMask, read.emptySkyLightMask, read.emptyBlockLightMask)
// a later update of the light (update_light): the body ends with the server's latest light
for (const p of points.slice(0, 100)) column.setSkyLight(p, (column.getSkyLight(p) + 5) % 16)
const update = createDeserializer({ state: 'play', isServer: false, version }).parsePacketBuffer(
  server.createPacketBuffer({ name: 'update_light', params: { chunkX: 3, chunkZ: -2, trustEdges: true, ...column.dumpLight() } })).data.params
body.loadParsedLight(update.skyLight, update.blockLight, update.skyLightMask, update.blockLightMask, update.emptySkyLightMask, update.emptyBlockLightMask)
const pending = Array.isArray(body.pianoLight) && body.pianoLight.length > 0
const light = points.map(p => [body.getSkyLight(p), body.getBlockLight(p)])
const expected = points.map(p => [column.getSkyLight(p), column.getBlockLight(p)])
process.stdout.write(JSON.stringify({
  changed,
  hash: crypto.createHash('sha256').update(bytes).digest('hex'),
  buffers: Array.isArray(read.skyLight) && read.skyLight.length > 0 && Buffer.isBuffer(read.skyLight[0]),
  sections: Array.isArray(read.skyLight) ? read.skyLight.length : 0,
  same: JSON.stringify(light) === JSON.stringify(expected),
  pending, // the light was kept undecoded until read
  decoded: !body.pianoLight
}))
