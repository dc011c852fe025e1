'use strict'
// A plain minecraft-protocol client logs in as a game client would and reports what the
// server told it of compression (the `compress` packet of the login, if any), that it reached
// the game, and how many chunk columns it was sent and decoded (the largest packets: deflated
// when the server compresses, plain when it does not).
//   node compression_check.js '{"port": 25565, "version": "1.21.11", "columns": 9}'
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const mc = require(path.join(NM, 'minecraft-protocol'))

const opts = JSON.parse(process.argv[2])
const wanted = opts.columns ?? 9
const client = mc.createClient({ host: '127.0.0.1', port: opts.port, username: opts.username || 'Human', version: opts.version, auth: 'offline' })
const told = []
let columns = 0
client.on('compress', (p) => told.push(p.threshold))
client.on('position', (p) => { if (p.teleportId !== undefined) client.write('teleport_confirm', { teleportId: p.teleportId }) })
client.on('error', (err) => { console.error(String(err)); process.exit(1) })
const played = new Promise(resolve => client.once('update_health', resolve))
const chunks = new Promise(resolve => client.on('map_chunk', () => { if (++columns === wanted) resolve() }))

async function main () {
  const timer = setTimeout(() => { console.error(`timed out: compress ${told}, ${columns} columns`); process.exit(1) }, 30000)
  await played
  await chunks
  clearTimeout(timer)
  process.stdout.write(JSON.stringify({ compress: told, threshold: client.compressionThreshold, columns }) + '\n')
  client.end()
  process.exit(0)
}
main().catch((err) => { console.error(err); process.exit(1) })
