'use strict'
// What a packet costs on the wire (CPU time), both ends, at a compression threshold: the server's side
// (a minecraft-protocol Client per player, isServer, its serializer -> [compressor] -> framer
// into a socket that keeps the bytes) and a body's (the same bytes read by a client's
// splitter -> [decompressor] -> deserializer). As the server sends them: moves shared among
// the players told them (../shared_packets.js), chunk columns serialized and deflated once
// for all (../chunk_sends.js); with `framed`, moves framed once and written to each socket
// (shared_packets.writeFramed, as plugins/tracking.js writes them). One JSON line per
// threshold and way:
//   node bots/server/bench/wire_bench.js '{"version": "26.1", "thresholds": [256, -1]}'
const path = require('path')
const { Duplex } = require('stream')
const req = require('module').createRequire(path.resolve(__dirname, '../../package.json'))

const opts = JSON.parse(process.argv[2] || '{}')
const version = opts.version || '26.1'
const players = opts.players ?? 49
const moves = opts.moves ?? 2000
const columns = opts.columns ?? 24

require('../compat/flying_squid').allowVersion(version)
require('../../body/lib/framing').install()
const chunkSends = require('../chunk_sends')
chunkSends.install()
const shared = require('../shared_packets')
shared.install()
const { Client } = req('minecraft-protocol')
const registry = req('prismarine-registry')(version)
const nbt = req('prismarine-nbt')
const generation = require('../generator')

// a socket that keeps what is written to it
function sink () {
  const kept = []
  const socket = new Duplex({ read () {}, write (chunk, enc, cb) { kept.push(chunk); cb() } })
  socket.kept = kept
  return socket
}

function serverSide (threshold) {
  const socket = sink()
  const client = new Client(true, version)
  client.setSocket(socket)
  client.state = 'play'
  if (threshold >= 0) client.compressionThreshold = threshold
  return { client, socket }
}

// this process's CPU time in microseconds (not wall time: the machine is shared)
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system }

// every turn's deferred stream work done (a pipe's first pushes wait for the next tick)
const settled = () => new Promise(resolve => setImmediate(resolve))

// a body's end: the bytes in, packets out (counted)
async function parse (bytes, threshold, expected) {
  const client = new Client(false, version)
  client.state = 'play'
  if (threshold >= 0) client.compressionThreshold = threshold
  let n = 0
  client.on('packet', () => { n++ })
  client.on('error', (e) => { console.error(String(e).slice(0, 300)); process.exit(1) })
  const t0 = cpu()
  for (const b of bytes) client.splitter.write(b)
  while (n < expected) await settled()
  const ms = (cpu() - t0) / 1000
  return { ms, packets: n }
}

const generate = generation({ registry, seed: 1, villageSeed: 0, layout: {}, version })
const heightmaps = registry.version['>=']('1.21.5')
  ? [{ type: 'motion_blocking', data: new Array(37).fill([0, 0]) }]
  : nbt.comp({ MOTION_BLOCKING: nbt.longArray(new Array(36).fill([0, 0])) })
const chunks = []
for (let i = 0; i < columns; i++) {
  const x = (i % 6) - 3
  const z = Math.floor(i / 6) - 2
  chunks.push({ x, z, column: generate(x, z) })
}

async function run (threshold, framed) {
  const ends = Array.from({ length: players }, () => serverSide(threshold))
  // moves: one entity_move_look told to every player, a new one per update (as the tracker)
  let t0 = cpu()
  for (let i = 0; i < moves; i++) {
    const p = shared.share({ entityId: 1000 + (i % 50), dX: 512, dY: 0, dZ: -96 - (i % 7), yaw: (i % 200) - 100, pitch: 3, onGround: true })
    if (framed) for (const e of ends) shared.writeFramed(e.client, 'entity_move_look', p)
    else for (const e of ends) e.client.write('entity_move_look', p)
  }
  await settled()
  const moveMs = (cpu() - t0) / 1000
  const moveBytes = ends[0].socket.kept.slice()
  ends[0].socket.kept.length = 0
  // chunk columns: each sent to every player (flying-squid's map_chunk of 1.18 on)
  t0 = cpu()
  for (const { x, z, column } of chunks) {
    for (const e of ends) {
      e.client.write('map_chunk', { x, z, heightmaps, chunkData: column.dump(), blockEntities: [], trustEdges: true, suppressLightUpdates: true, ...column.dumpLight() })
    }
  }
  await settled()
  const chunkMs = (cpu() - t0) / 1000
  const chunkBytes = ends[0].socket.kept.slice()
  const readMoves = await parse(moveBytes, threshold, moves)
  const readChunks = await parse(chunkBytes, threshold, columns)
  const sum = (list) => list.reduce((a, b) => a + b.length, 0)
  return {
    version,
    threshold,
    moves_framed: framed,
    players,
    server_us_per_move_write: +(moveMs * 1000 / (moves * players)).toFixed(3),
    server_us_per_chunk_write: +(chunkMs * 1000 / (columns * players)).toFixed(1),
    body_us_per_move_read: +(readMoves.ms * 1000 / moves).toFixed(3),
    body_us_per_chunk_read: +(readChunks.ms * 1000 / columns).toFixed(1),
    bytes_per_move: +(sum(moveBytes) / moves).toFixed(1),
    bytes_per_chunk: Math.round(sum(chunkBytes) / columns),
    packets_read: readMoves.packets + readChunks.packets,
    chunk_sends: { ...chunkSends.stats },
    shared_moves: { ...shared.stats },
    framed_moves: { ...shared.framing }
  }
}

const thresholds = opts.thresholds || [256, -1]
const rounds = opts.rounds ?? 3
async function main () {
  for (let r = 0; r < rounds; r++) {
    for (const t of thresholds) {
      for (const framed of [false, true]) process.stdout.write(JSON.stringify({ round: r + 1, ...(await run(t, framed)) }) + '\n')
    }
  }
}
main().catch((err) => { console.error(err); process.exit(1) })
