'use strict'
// What a client at `version` reads of the packets flying-squid writes in their 1.21.4 shape,
// with and without bots/server/plugins/newer_versions.js: each write goes through
// minecraft-protocol's server serializer and back through the client's deserializer (a write
// that throws is reported as its error). Also: 26.1's attack packet as flying-squid reads it,
// and what mineflayer's velocity conversion makes of an lpVec3 velocity once our body's
// version_compat.js has seen it.
//   node newer_packets_check.js '"1.21.11"'
const path = require('path')
const { EventEmitter } = require('events')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const { createSerializer, createDeserializer } = require(path.join(NM, 'minecraft-protocol/src/transforms/serializer'))
const nbt = require(path.join(NM, 'prismarine-nbt'))

const version = JSON.parse(process.argv[2])
const registry = require(path.join(NM, 'prismarine-registry'))(version)
const BOTS = path.resolve(__dirname, '../../../bots')
const plugin = require(path.join(BOTS, 'server', 'plugins', 'newer_versions.js'))
const serializer = createSerializer({ state: 'play', isServer: true, version })
const deserializer = createDeserializer({ state: 'play', isServer: false, version })

// flying-squid's writes, in its shapes
const WRITES = [
  ['spawn_position', { location: { x: 1, y: 64, z: 2 } }],
  ['entity_velocity', { entityId: 5, velocity: { x: 800, y: 1600, z: -400 } }],
  ['update_time', { age: [0, 0], time: [0, 6000] }],
  ['map_chunk', {
    x: 0,
    z: 0,
    heightmaps: nbt.comp({ MOTION_BLOCKING: nbt.longArray(new Array(36).fill([0, 0])) }),
    chunkData: Buffer.alloc(0),
    blockEntities: [],
    trustEdges: true,
    skyLightMask: [],
    blockLightMask: [],
    emptySkyLightMask: [],
    emptyBlockLightMask: [],
    skyLight: [],
    blockLight: []
  }]
]

function fakePlayer () {
  const client = new EventEmitter()
  client.sent = []
  client.write = (name, params) => { client.sent.push([name, params]) }
  return { _client: client }
}

function read ([name, params]) {
  try {
    const back = deserializer.parsePacketBuffer(serializer.createPacketBuffer({ name, params }))
    return { name: back.data.name, params: back.data.params }
  } catch (err) {
    return { name, error: String(err && err.message).slice(0, 200) }
  }
}

const out = {}
for (const side of ['without_plugin', 'with_plugin']) {
  const player = fakePlayer()
  if (side === 'with_plugin') plugin.player(player, { registry, doDaylightCycle: true })
  for (const [name, params] of WRITES) player._client.write(name, params)
  const got = {}
  for (const sent of player._client.sent) got[sent[0]] = read(sent)
  const uses = []
  player._client.on('use_entity', (p) => uses.push(p))
  player._client.emit('attack', { entityId: 42 })
  out[side] = { packets: got, use_entity: uses }
}

// the body's side: mineflayer divides by 8000 whatever the version
const conv = require(path.join(NM, 'mineflayer/lib/conversions'))
const { Vec3 } = require(path.join(NM, 'vec3'))
const bot = { registry, _client: new EventEmitter() }
require(path.join(BOTS, 'body', 'lib', 'version_compat.js')).install(bot)
let mineflayerReads = null
bot._client.on('entity_velocity', (p) => { mineflayerReads = conv.fromNotchVelocity(new Vec3(p.velocity.x, p.velocity.y, p.velocity.z)) })
bot._client.emit('entity_velocity', { entityId: 5, velocity: { x: 0.1, y: 0.2, z: -0.05 } })
out.body_velocity = mineflayerReads

process.stdout.write(JSON.stringify(out, (k, v) => (typeof v === 'bigint' ? Number(v) : v)))
