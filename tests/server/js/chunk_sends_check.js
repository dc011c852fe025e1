'use strict'
// A column sent to two players, then changed (a block, then its light) and sent again: the
// bytes each player's compressor puts out, with flying-squid's way (every send dumped,
// serialized and deflated: "stock") or with bots/server/chunk_sends.js ("kept"). Prints
// the hashes of what each player is sent and, when kept, how much was made once.
const path = require('path')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const [version, mode] = process.argv.slice(2).map(a => JSON.parse(a))
const sends = mode === 'kept' ? require(path.resolve(__dirname, '../../../bots/server/chunk_sends.js')) : null
if (sends) sends.install()
const { player: wirePlayer } = require(path.resolve(__dirname, 'wire_player.js'))
const registry = req('prismarine-registry')(version)
const Chunk = req('prismarine-chunk')(registry)
const nbt = req('prismarine-nbt')
const { Vec3 } = req('vec3')

const column = new Chunk({ minY: -64, worldHeight: 384 })
for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) column.setBlockStateId(new Vec3(x, 60, z), registry.blocksByName.stone.defaultState)
for (let y = 61; y < 100; y++) column.setSkyLight(new Vec3(3, y, 3), 15)
const heightmaps = registry.version['>=']('1.21.5')
  ? [{ type: 'motion_blocking', data: new Array(37).fill([0, 0]) }]
  : nbt.comp({ MOTION_BLOCKING: nbt.longArray(new Array(36).fill([0, 0])) })

const player = () => wirePlayer(version)
// flying-squid's map_chunk for 1.18 on (world.js)
const send = (p) => p.serializer.write({
  name: 'map_chunk',
  params: { x: 2, z: -1, heightmaps, chunkData: column.dump(), blockEntities: [], trustEdges: true, suppressLightUpdates: true, ...column.dumpLight() }
})
const a = player()
const b = player()
send(a); send(b)
column.setBlockStateId(new Vec3(5, 61, 5), registry.blocksByName.oak_log.defaultState)
send(a); send(b)
column.setSkyLight(new Vec3(5, 70, 5), 7)
send(b); send(a)
setImmediate(() => {
  process.stdout.write(JSON.stringify({ a: a.out, b: b.out, stats: sends ? sends.stats : null }))
})
