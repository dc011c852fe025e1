'use strict'
// What a player is told of another by the server's entity tracking (bots/server/plugins/
// tracking.js), with two raw clients on the village: a watcher that stays on the square and
// a mover the admin API teleports.
// - near: the mover 3 blocks from the watcher walks; the watcher is told of its moves and
//   ends where the server has the mover
// - beyond: teleported 70 blocks east (beyond the 48 blocks of a player's tracking range,
//   inside the view distance), the mover walks 8 steps; the watcher is told to destroy it and
//   is sent none of those moves
// - back: teleported back 5 blocks from the watcher, the mover is spawned for it again at its
//   position and its next move is relayed
// Prints { near: {...}, beyond: {...}, back: {...} }.
//   node tracking_check.js '{"port": .., "version": .., "adminPort": .., "adminTokenFile": ..}'
const path = require('path')
const { harnessFromSettings } = require(path.resolve(__dirname, '../../../bots/hostile/harness'))
const m = require(path.resolve(__dirname, '../../../bots/hostile/lib/movement'))

const opts = JSON.parse(process.argv[2])
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))
const SPAWNS = ['named_entity_spawn', 'spawn_entity']
const MOVES = ['rel_entity_move', 'entity_move_look', 'entity_teleport', 'sync_entity_position']

// every packet `watcher` is sent about entity `id`, in order, with when it came
function record (watcher, id) {
  const log = []
  for (const name of [...SPAWNS, ...MOVES]) {
    watcher.on(name, (p) => { if (p.entityId === id) log.push({ name, at: Date.now(), p }) })
  }
  watcher.on('entity_destroy', (p) => {
    if ((p.entityIds || []).includes(id)) log.push({ name: 'entity_destroy', at: Date.now(), p })
  })
  return log
}

// teleport `client` near `to` (the server may move it to safe ground) and resolve with where
// it stands once it confirmed
async function teleport (t, client, to) {
  const sent = t.next(client, 'position', () => true, 10000)
  await t.admin('POST', `/players/${encodeURIComponent(client.username)}/teleport`, to)
  await sent
  await t.sync(client)
  return { ...client.position }
}

// `steps` small honest moves east from `from`, one a tick
async function walk (t, client, from, steps) {
  let at = from
  for (let i = 1; i <= steps; i++) {
    at = { x: from.x + 0.2 * i, y: from.y, z: from.z }
    m.move(client, at)
    await sleep(50)
  }
  await t.sync(client)
  return at
}

// until a packet named in `names` is in `log` after index `from` (or `ms` passed)
async function waitFor (log, from, names, ms) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (log.slice(from).some(e => names.includes(e.name))) return true
    await sleep(20)
  }
  return false
}

async function main () {
  const t = harnessFromSettings(opts)
  const s = await m.square(t)
  const out = {}
  try {
    const watcher = await t.join(t.name('watch'))
    const mover = await t.join(t.name('mover'))
    const home = await teleport(t, watcher, { x: s.x + 0.5, y: s.y, z: s.z + 0.5 })
    const log = record(watcher, mover.entityId)
    const seen = m.watch(watcher, mover.entityId, await m.serverPosition(t, mover.username))

    // near
    const start = await teleport(t, mover, { x: home.x + 3, y: home.y, z: home.z })
    let mark = log.length
    const end = await walk(t, mover, start, 8)
    await sleep(400) // two update intervals and then some
    await t.sync(watcher)
    out.near = {
      moves: log.slice(mark).filter(e => MOVES.includes(e.name)).length,
      told: m.round(seen.last),
      server: m.round(await m.serverPosition(t, mover.username)),
      walked: m.round(end)
    }

    // beyond
    mark = log.length
    const far = await teleport(t, mover, { x: home.x + 70, y: home.y, z: home.z })
    const destroyed = await waitFor(log, mark, ['entity_destroy'], 2000)
    const walkFrom = log.length
    await walk(t, mover, far, 8)
    await sleep(400)
    await t.sync(watcher)
    out.beyond = {
      distance: +(far.x - home.x).toFixed(1),
      destroyed,
      movesWhileBeyond: log.slice(walkFrom).filter(e => MOVES.includes(e.name)).length,
      spawnsWhileBeyond: log.slice(walkFrom).filter(e => SPAWNS.includes(e.name)).length
    }

    // back
    mark = log.length
    const back = await teleport(t, mover, { x: home.x + 5, y: home.y, z: home.z })
    const spawned = await waitFor(log, mark, SPAWNS, 2000)
    const spawn = log.slice(mark).find(e => SPAWNS.includes(e.name))
    const moved = log.length
    await walk(t, mover, back, 2)
    const relayed = await waitFor(log, moved, MOVES, 2000)
    out.back = {
      spawned,
      spawnedAt: spawn ? m.round(spawn.p) : null,
      standsAt: m.round(back),
      relayed
    }
  } finally {
    await t.closeAll()
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
