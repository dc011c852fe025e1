'use strict'
// A client that walks before it sends a look-only or an on-ground-only packet: flying-squid's
// login waits for such a packet (waitPlayerLogin: 'flying' or 'look'), then sends the login
// position again. mineflayer >= 1.12 sends neither while it walks (position and
// position_look only), so that second position came after the walk and put the player back
// where it logged in. A raw minecraft-protocol client logs in, confirms the server's
// positions, walks `steps` quarter blocks along x from the login position, then looks; it
// prints the login position, where it walked to, and every position the server sent after
// the walk began.
//   node login_position_check.js '{"port": 25565, "version": "1.21.4", "steps": 12}'
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const mc = require(path.join(NM, 'minecraft-protocol'))

const opts = JSON.parse(process.argv[2])
const steps = opts.steps ?? 12
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

const client = mc.createClient({ host: '127.0.0.1', port: opts.port, username: opts.username || 'Walker', version: opts.version, auth: 'offline' })
const positions = []
let walking = false
let first = null // the login position (sent before the login's last packet)
// the login's last packet (flying-squid then waits for the client's look or on-ground packet)
const loggedIn = new Promise(resolve => client.once('update_health', resolve))
client.on('position', (p) => {
  const at = { x: p.x, y: p.y, z: p.z }
  if (walking) positions.push(at)
  client.write('teleport_confirm', { teleportId: p.teleportId })
  first = first || at
})
client.on('error', (err) => { console.error(String(err)); process.exit(1) })
const onGround = { onGround: true, flags: { onGround: true, hasHorizontalCollision: false } }

async function main () {
  const timer = setTimeout(() => { console.error('timed out'); process.exit(1) }, 30000)
  await loggedIn
  walking = true
  let x = first.x
  for (let i = 0; i < steps; i++) {
    x += 0.25
    client.write('position', { x, y: first.y, z: first.z, ...onGround })
    await sleep(50)
  }
  client.write('look', { yaw: 90, pitch: 0, ...onGround }) // as a bot turning to dig
  // then a dig out of reach, which the server refuses with the block as it is: that answer
  // leaves after anything the look made the server send
  const far = { x: Math.floor(first.x) + 30, y: Math.floor(first.y) - 1, z: Math.floor(first.z) }
  const refused = new Promise(resolve => client.on('block_change', (p) => {
    if (p.location.x === far.x && p.location.y === far.y && p.location.z === far.z) resolve()
  }))
  client.write('block_dig', { status: 0, location: far, face: 1, sequence: 1 })
  client.write('block_dig', { status: 2, location: far, face: 1, sequence: 2 })
  await refused
  clearTimeout(timer)
  process.stdout.write(JSON.stringify({ login: first, walked_to: { x, y: first.y, z: first.z }, sent_after_walk: positions }) + '\n')
  client.end()
  process.exit(0)
}
main().catch((err) => { console.error(err); process.exit(1) })
