'use strict'
// What a player is told of another by the server's entity tracking (bots/server/plugins/
// tracking.js), with three raw clients on the village: a watcher that stays on the square, a
// marker beside it whose small moves tell when the watcher has been sent everything before
// them, and a mover the admin API teleports.
// - near: the mover 3 blocks from the watcher walks; the watcher is told of its moves and
//   ends where the server has the mover; a new viewer of the mover (the marker joining) sends
//   the watcher nothing of the mover (its metadata goes to the new viewer only)
// - beyond: teleported 70 blocks east (beyond the 48 blocks of a player's tracking range,
//   inside the view distance), three times from beside the watcher: the watcher is told to
//   destroy it, and nothing of where it went before that; then the mover walks 8 steps and
//   the watcher is sent none of those moves
// - back: teleported back 5 blocks from the watcher, the mover is spawned for it again at its
//   position and its next move is relayed
// - corner: teleported 40 blocks east and 40 south of the watcher (within 48 in x and in z,
//   57 away): tracked on a square range, destroyed on a circle
// - view: while the mover walks, it is sent `update_view_position` only when it crosses into
//   another chunk column
// Prints { near: {...}, beyond: {...}, back: {...}, corner: {...}, view: {...} }.
//   node tracking_check.js '{"port": .., "version": .., "adminPort": .., "adminTokenFile": ..}'
const path = require('path')
const { harnessFromSettings } = require(path.resolve(__dirname, '../../../bots/hostile/harness'))
const m = require(path.resolve(__dirname, '../../../bots/hostile/lib/movement'))

const opts = JSON.parse(process.argv[2])
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))
const SPAWNS = ['named_entity_spawn', 'spawn_entity']
const MOVES = ['rel_entity_move', 'entity_move_look', 'entity_teleport', 'sync_entity_position']
const WAIT_MS = 5000
const JUMPS = 3

// every packet `watcher` is sent about entity `id`, in order
function record (watcher, id) {
  const log = []
  for (const name of [...SPAWNS, ...MOVES, 'entity_metadata']) {
    watcher.on(name, (p) => { if (p.entityId === id) log.push({ name, p }) })
  }
  watcher.on('entity_destroy', (p) => {
    if ((p.entityIds || []).includes(id)) log.push({ name: 'entity_destroy', p })
  })
  return log
}

// until `test()` holds (or `ms` passed); whether it held
async function until (test, ms = WAIT_MS) {
  const deadline = Date.now() + ms
  while (!test()) {
    if (Date.now() > deadline) return false
    await sleep(20)
  }
  return true
}

// the index of the first packet named in `names` in `log` from index `from`, or -1
const indexOf = (log, from, names) => log.findIndex((e, i) => i >= from && names.includes(e.name))

// teleport `client` near `to` (the server may move it to safe ground) and resolve with where
// it stands once it confirmed
async function teleport (t, client, to) {
  const sent = t.next(client, 'position', () => true, 10000)
  await t.admin('POST', `/players/${encodeURIComponent(client.username)}/teleport`, to)
  await sent
  await t.sync(client)
  return { ...client.position }
}

// `steps` small honest moves east from `from`, one a tick (the server's speed check)
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

const column = (p) => `${Math.floor(p.x / 16)},${Math.floor(p.z / 16)}`

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
    const views = []
    mover.on('update_view_position', (p) => views.push(p))
    const view = { walks: 0, columnsCrossed: 0, viewUpdates: 0 }
    // a walk of the mover, counting its view centre updates against the columns it crossed
    const walkCounted = async (from, steps) => {
      const before = views.length
      const end = await walk(t, mover, from, steps)
      view.walks++
      if (column(from) !== column(end)) view.columnsCrossed++
      view.viewUpdates += views.length - before
      return end
    }

    // near
    let start = await teleport(t, mover, { x: home.x + 3, y: home.y, z: home.z })
    let mark = log.length
    const end = await walkCounted(start, 8)
    const server = m.round(await m.serverPosition(t, mover.username))
    await until(() => JSON.stringify(m.round(seen.last)) === JSON.stringify(server))
    out.near = {
      moves: log.slice(mark).filter(e => MOVES.includes(e.name)).length,
      told: m.round(seen.last),
      server,
      walked: m.round(end)
    }

    // the marker joins beside the watcher: a new viewer of the mover
    mark = log.length
    const marker = await t.join(t.name('marker'))
    const markSeen = m.watch(watcher, marker.entityId, await m.serverPosition(t, marker.username))
    let markAt = await teleport(t, marker, { x: home.x - 3, y: home.y, z: home.z })
    let dx = 0.25
    // two small moves of the marker, each until the watcher is told of it: by then the
    // watcher was sent everything the server had for it before the first
    const settle = async () => {
      for (let i = 0; i < 2; i++) {
        markAt = await m.marker(t, marker, markSeen, markAt, dx)
        dx = -dx
      }
    }
    await settle()
    out.near.metadataOnNewViewer = log.slice(mark).filter(e => e.name === 'entity_metadata').length

    // beyond: jumps away from beside the watcher
    out.beyond = { jumps: [] }
    let far = null
    for (let i = 0; i < JUMPS; i++) {
      if (i > 0) {
        mark = log.length
        start = await teleport(t, mover, { x: home.x + 3, y: home.y, z: home.z })
        await until(() => indexOf(log, mark, SPAWNS) >= 0)
      }
      mark = log.length
      far = await teleport(t, mover, { x: home.x + 70, y: home.y, z: home.z })
      await until(() => indexOf(log, mark, ['entity_destroy']) >= 0)
      const destroyedAt = indexOf(log, mark, ['entity_destroy'])
      out.beyond.jumps.push({
        destroyed: destroyedAt >= 0,
        movesBeforeDestroy: log.slice(mark, destroyedAt < 0 ? log.length : destroyedAt).filter(e => MOVES.includes(e.name)).map(e => m.round(e.p))
      })
    }
    const walkFrom = log.length
    await walkCounted(far, 8)
    await settle()
    out.beyond.distance = +(far.x - home.x).toFixed(1)
    out.beyond.destroyed = out.beyond.jumps.every(j => j.destroyed)
    out.beyond.movesWhileBeyond = log.slice(walkFrom).filter(e => MOVES.includes(e.name)).length
    out.beyond.spawnsWhileBeyond = log.slice(walkFrom).filter(e => SPAWNS.includes(e.name)).length

    // back
    mark = log.length
    const back = await teleport(t, mover, { x: home.x + 5, y: home.y, z: home.z })
    const spawned = await until(() => indexOf(log, mark, SPAWNS) >= 0)
    const spawn = log[indexOf(log, mark, SPAWNS)]
    const moved = log.length
    await walkCounted(back, 2)
    const relayed = await until(() => indexOf(log, moved, MOVES) >= 0)
    out.back = {
      spawned,
      spawnedAt: spawn ? m.round(spawn.p) : null,
      standsAt: m.round(back),
      relayed
    }

    // corner: tracked (spawned and not destroyed since) or not, once the watcher has been
    // sent everything up to two marker moves after the jump
    mark = log.length
    const corner = await teleport(t, mover, { x: home.x + 40, y: home.y, z: home.z + 40 })
    await settle()
    let tracked = true
    for (const e of log.slice(mark)) {
      if (SPAWNS.includes(e.name)) tracked = true
      if (e.name === 'entity_destroy') tracked = false
    }
    out.corner = { dx: +(corner.x - home.x).toFixed(1), dz: +(corner.z - home.z).toFixed(1), tracked }
    out.view = view
  } finally {
    await t.closeAll()
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
