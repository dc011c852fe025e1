'use strict'
// One player's connection on the server side (minecraft-protocol's Client: serializer ->
// [compressor] -> framer -> its socket, batched as the server batches it), written the
// tracker's moves between other packets (small plugin messages, large ones the compressor
// deflates, one written while the framer is held back): with every move by `client.write`
// ("stock") or the moves framed once and written to the socket (shared_packets.writeFramed,
// "framed"). Prints a hash of every byte the socket was given, and the framing counts.
//   node framed_moves_check.js '"26.1"' '256' '"framed"'
const path = require('path')
const crypto = require('crypto')
const { Duplex } = require('stream')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const [version, threshold, mode] = process.argv.slice(2).map(a => JSON.parse(a))
require(path.resolve(__dirname, '../../../bots/server/compat/flying_squid.js')).allowVersion(version)
const shared = require(path.resolve(__dirname, '../../../bots/server/shared_packets.js'))
shared.install()
const batched = require(path.resolve(__dirname, '../../../bots/server/plugins/batched_writes.js'))
const { Client } = req('minecraft-protocol')

const hash = crypto.createHash('sha256')
let bytes = 0
const socket = new Duplex({ read () {}, write (chunk, enc, cb) { hash.update(chunk); bytes += chunk.length; cb() } })
batched.install(socket)
const client = new Client(true, version)
client.setSocket(socket)
client.state = 'play'
if (threshold >= 0) client.compressionThreshold = threshold

const names = ['entity_move_look', 'rel_entity_move', 'entity_look', 'entity_head_rotation']
function move (i) {
  const name = names[i % names.length]
  const params = [
    { entityId: 7 + (i % 3), dX: 512 - i, dY: 0, dZ: -96, yaw: i % 100, pitch: -3, onGround: true },
    { entityId: 7 + (i % 3), dX: 7, dY: -4096 + i, dZ: 0, onGround: false },
    { entityId: 7 + (i % 3), yaw: 100 - (i % 50), pitch: 5, onGround: false },
    { entityId: 7 + (i % 3), headYaw: i % 120 }
  ][i % names.length]
  const one = shared.share(params)
  if (mode === 'framed') shared.writeFramed(client, name, one)
  else client.write(name, one)
}
const message = (n, i) => client.write('custom_payload', { channel: 'piano:check', data: Buffer.alloc(n, i % 251) })

async function main () {
  for (let i = 0; i < 300; i++) {
    move(i)
    if (i % 5 === 0) message(20, i)
    if (i % 7 === 0) message(600, i) // deflated when the threshold is 256
    if (i % 50 === 25) {
      // the framer holds back what it made (as a paused pipe would): a move must wait its turn
      client.framer.pause()
      message(30, i)
      move(i + 1)
      client.framer.resume()
    }
    if (i % 60 === 0) await new Promise(resolve => setImmediate(resolve))
  }
  await new Promise(resolve => setImmediate(resolve))
  await new Promise(resolve => setImmediate(resolve))
  process.stdout.write(JSON.stringify({ sha: hash.digest('hex').slice(0, 16), bytes, stats: shared.framing }) + '\n')
  process.exit(0)
}
main().catch((err) => { console.error(err); process.exit(1) })
