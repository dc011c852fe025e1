'use strict'
// A player that looks at another and drops a stack at once (the `give` skill: look, toss):
// flying-squid applies a look after two awaited events, so a drop read right after it was
// thrown where the player had looked before. Two raw clients log in: Receiver, then Giver;
// both end their login with an on-ground packet; the admin API puts Receiver at RECEIVER and
// Giver 2 blocks behind it (on the test world's flat grass), facing away as it logged in
// (yaw 0, +z), and gives Giver one dirt. Giver then writes a look at Receiver and the drop
// key back to back. Prints both entity ids and who collected the stack (the server's
// `collect` packet), or null when nobody did within 5 s.
//   node look_then_drop_check.js '{"port": 25565, "version": "1.21.4", "admin": 8080, "token": "..."}'
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const mc = require(path.join(NM, 'minecraft-protocol'))

const opts = JSON.parse(process.argv[2])
const onGround = { onGround: true, flags: { onGround: true, hasHorizontalCollision: false } }
const RECEIVER = { x: 6.5, y: 65, z: 5.5 }
const GIVER = { x: 6.5, y: 65, z: 7.5 }

async function admin (route, body) {
  const res = await fetch(`http://127.0.0.1:${opts.admin}${route}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${opts.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  })
  if (!res.ok) throw new Error(`admin ${route}: ${res.status} ${await res.text()}`)
}

// the client's next position from the server at `at`
const arrives = (client, at) => new Promise(resolve => client.on('position', (p) => {
  if (p.x === at.x && p.y === at.y && p.z === at.z) resolve()
}))

// a logged-in client that confirms the server's positions; resolves to { client, id }
function join (username) {
  const client = mc.createClient({ host: '127.0.0.1', port: opts.port, username, version: opts.version, auth: 'offline' })
  client.on('error', (err) => { console.error(`${username}: ${err}`); process.exit(1) })
  client.on('position', (p) => client.write('teleport_confirm', { teleportId: p.teleportId }))
  let id = null
  client.once('login', (p) => { id = p.entityId })
  // the login's last packet (flying-squid then waits for a look or on-ground packet)
  return new Promise(resolve => client.once('update_health', () => resolve({ client, id })))
}

const held = (p) => p.slot === 36 && p.item && (p.item.itemCount > 0 || p.item.present === true)

async function main () {
  const timer = setTimeout(() => { console.error('timed out'); process.exit(1) }, 30000)
  const receiver = await join('Receiver')
  const giver = await join('Giver')
  // end both logins first: their resend of the login position must not answer the look
  for (const { client } of [receiver, giver]) {
    const resent = new Promise(resolve => client.once('position', resolve))
    client.write('flying', onGround)
    await resent
  }
  for (const [{ client }, name, at] of [[receiver, 'Receiver', RECEIVER], [giver, 'Giver', GIVER]]) {
    const there = arrives(client, at)
    await admin(`/players/${name}/teleport`, at)
    await there
  }
  const given = new Promise(resolve => giver.client.on('set_slot', (p) => { if (held(p)) resolve() }))
  await admin('/command', { command: '/give Giver dirt 1' })
  await given
  // at Receiver's middle from Giver's eyes, in the protocol's degrees (yaw 0 = +z, pitch down > 0)
  const dx = RECEIVER.x - GIVER.x
  const dy = (RECEIVER.y + 0.9) - (GIVER.y + 1.62)
  const dz = RECEIVER.z - GIVER.z
  const yaw = Math.atan2(-dx, dz) * 180 / Math.PI
  const pitch = -Math.atan2(dy, Math.hypot(dx, dz)) * 180 / Math.PI
  const collected = new Promise(resolve => {
    giver.client.on('collect', (p) => resolve(p.collectorEntityId))
    setTimeout(() => resolve(null), 5000)
  })
  giver.client.write('look', { yaw, pitch, ...onGround })
  giver.client.write('block_dig', { status: 4, location: { x: 0, y: 0, z: 0 }, face: 0, sequence: 1 })
  const collector = await collected
  clearTimeout(timer)
  process.stdout.write(JSON.stringify({ receiver: receiver.id, giver: giver.id, collector }) + '\n')
  giver.client.end()
  receiver.client.end()
  process.exit(0)
}
main().catch((err) => { console.error(err); process.exit(1) })
