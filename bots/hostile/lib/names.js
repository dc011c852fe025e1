'use strict'
// Helpers of the names and floods cheats: an honest body of the run (a raw client that
// answers the login proof with the run's body key, as bots/body does), a bystander that
// measures its own lag while a cheat runs, and raw frames a modified client could send.

const fs = require('fs')
const path = require('path')
const zlib = require('zlib')
const loginProof = require('../../body/lib/login_proof')

// the run's body key: settings.bodyKeyFile, else the server's own beside its admin token
// (bots/server_host.py keeps both in the world folder)
function keyFile () {
  let settings = {}
  try { settings = JSON.parse(process.argv[2] || '{}') } catch (e) {}
  if (settings.bodyKeyFile) return settings.bodyKeyFile
  if (settings.adminTokenFile) {
    const file = path.join(path.dirname(settings.adminTokenFile), 'body.key')
    if (fs.existsSync(file)) return file
  }
  throw new Error('no body key file (settings.bodyKeyFile)')
}

/** A body of this run logged in under ``name`` (it proves the name with the run's key). */
async function joinAsBody (t, name) {
  const secret = loginProof.readSecret(keyFile())
  const mc = require('minecraft-protocol')
  const create = mc.createClient
  // t.join creates the client: answer the proof on the one it creates
  mc.createClient = (opts) => {
    const client = create(opts)
    loginProof.answerWith(client, secret, name)
    return client
  }
  try {
    return await t.join(name)
  } finally {
    mc.createClient = create
  }
}

/** A player's server-side state: online, position, inventory counts (admin API). */
async function stateOf (t, name) {
  const players = (await t.admin('GET', '/players')).players || []
  const online = players.filter(p => String(p.username).toLowerCase() === name.toLowerCase()).map(p => p.username)
  if (!online.includes(name)) return { online, position: null, inventory: null }
  const pos = await t.admin('GET', `/players/${name}/position`)
  const items = (await t.admin('GET', `/players/${name}/inventory`)).items || []
  const inventory = {}
  for (const it of items) inventory[it.name] = (inventory[it.name] || 0) + it.count
  return { online, position: { x: pos.x, y: pos.y, z: pos.z }, inventory }
}

function sameState (a, b) {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * A bystander's lag while ``during()`` runs: its sync round trips (ms) before and during,
 * and the longest answer of the admin API's /health (the server's loop) during.
 */
async function lagDuring (t, bystander, during) {
  const rtt = async () => { const t0 = Date.now(); await t.sync(bystander, 10000); return Date.now() - t0 }
  const before = []
  for (let i = 0; i < 5; i++) before.push(await rtt())
  let running = true
  const samples = []
  const health = []
  const probe = (async () => {
    while (running) {
      samples.push(await rtt())
      const t0 = Date.now()
      await t.admin('GET', '/health')
      health.push(Date.now() - t0)
      await new Promise(resolve => setTimeout(resolve, 20))
    }
  })()
  let result
  try {
    result = await during()
  } finally {
    await new Promise(resolve => setTimeout(resolve, 300)) // what the cheat queued is handled
    running = false
    await probe
  }
  return {
    result,
    lag: {
      bystanderRttBeforeMs: Math.max(...before),
      bystanderRttDuringMaxMs: Math.max(0, ...samples),
      serverHealthDuringMaxMs: Math.max(0, ...health),
      samples: samples.length
    }
  }
}

/** Wait until ``client`` is dropped by the server (or ``ms`` pass): its kick reason or null. */
function droppedWithin (client, ms) {
  if (client.ended) return Promise.resolve(client.kicked || 'ended')
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms)
    client.once('end', () => { clearTimeout(timer); setImmediate(() => resolve(client.kicked || 'ended')) })
  })
}

function varint (n) {
  const out = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n) b |= 0x80
    out.push(b)
  } while (n)
  return Buffer.from(out)
}

/** Bytes past minecraft-protocol's compressor, straight into its framer (one frame). */
function writeFrame (client, body) {
  client.framer.write(body)
}

/** A compressed frame claiming ``claimed`` bytes that inflates to ``actual`` zero bytes. */
function bombFrame (claimed, actual) {
  return Buffer.concat([varint(claimed), zlib.deflateSync(Buffer.alloc(actual))])
}

module.exports = { joinAsBody, stateOf, sameState, lagDuring, droppedWithin, varint, writeFrame, bombFrame, keyFile }
