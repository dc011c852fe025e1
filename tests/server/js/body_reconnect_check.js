'use strict'
// A body that logs in again while the server still holds its old connection (a dropped
// network the server has not noticed yet): it proves its name with the run's body key, the
// old connection is closed ("You logged in from another location") and the new one gets the
// player's saved inventory; a client without the proof is refused under that name.
// Prints {first: {kicked}, second: {in, bread}, impostor: {refused}}.
//   node body_reconnect_check.js '{"port", "version", "adminPort", "adminTokenFile", "keyFile", "name"}'
const fs = require('fs')
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const mc = require(path.join(NM, 'minecraft-protocol'))
const proof = require(path.resolve(__dirname, '../../../bots/body/lib/login_proof'))

const opts = JSON.parse(process.argv[2])
const token = fs.readFileSync(opts.adminTokenFile, 'utf8').trim()
const secret = proof.readSecret(opts.keyFile)

async function admin (method, route, body) {
  const res = await fetch(`http://127.0.0.1:${opts.adminPort}${route}`, {
    method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body)
  })
  return res.json()
}

function join (withProof) {
  const client = mc.createClient({ host: '127.0.0.1', port: opts.port, username: opts.name, version: opts.version, auth: 'offline', hideErrors: true })
  if (withProof) proof.answerWith(client, secret, opts.name)
  client.kicked = null
  const text = (r) => (typeof r === 'string' ? r : JSON.stringify(r))
  client.on('packet', (data, meta) => { if (meta.name === 'disconnect' || meta.name === 'kick_disconnect') client.kicked = text(data.reason) })
  client.on('position', (p) => client.write('teleport_confirm', { teleportId: p.teleportId }))
  client.on('error', () => {})
  client.loggedIn = new Promise((resolve) => {
    client.once('update_health', () => resolve(true))
    client.once('end', () => resolve(false))
  })
  client.gone = new Promise((resolve) => client.once('end', resolve))
  return client
}

async function main () {
  const first = join(true)
  if (!await first.loggedIn) throw new Error(`the body's first login failed: ${first.kicked}`)
  await admin('POST', '/command', { command: `/give ${opts.name} bread 5` })
  await new Promise(resolve => setTimeout(resolve, 1000)) // the server saves the change within 200 ms
  const second = join(true)
  const secondIn = await second.loggedIn
  await Promise.race([first.gone, new Promise(resolve => setTimeout(resolve, 5000))])
  const items = secondIn ? (await admin('GET', `/players/${opts.name}/inventory`)).items || [] : []
  const impostor = join(false)
  await impostor.loggedIn
  const online = ((await admin('GET', '/players')).players || []).map(p => p.username)
  process.stdout.write(JSON.stringify({
    first: { kicked: first.kicked },
    second: { in: secondIn, kicked: second.kicked, bread: items.filter(i => i.name === 'bread').reduce((n, i) => n + i.count, 0) },
    impostor: { refused: impostor.kicked },
    online
  }))
  second.end()
}

main().then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack)); process.exit(1) })
