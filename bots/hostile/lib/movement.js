'use strict'
// Helpers of the movement cheats: a cheat client placed on the village square by the admin
// API, raw moves, what another player was told of the cheat's position, and the server's
// own position of a player.

const PUT_MS = 10000

// the village square's centre block (players stand at its y)
async function square (t) {
  const plan = await t.admin('GET', '/places')
  return plan.spawn
}

// the server's position of a player (admin API)
async function serverPosition (t, username) {
  const p = await t.admin('GET', `/players/${encodeURIComponent(username)}/position`)
  return { x: p.x, y: p.y, z: p.z }
}

// teleport a client (admin API) and wait until it has the position (the harness confirms it)
async function put (t, client, at) {
  const sent = t.next(client, 'position', (p) => Math.abs(p.x - at.x) < 1e-6 && Math.abs(p.z - at.z) < 1e-6, PUT_MS)
  await t.admin('POST', `/players/${encodeURIComponent(client.username)}/teleport`, at)
  await sent
  await t.sync(client)
}

// one move as a client sends it (position packet; onGround in both shapes)
function move (client, p, onGround = true) {
  client.write('position', { x: p.x, y: p.y, z: p.z, onGround, flags: { onGround, hasHorizontalCollision: false } })
}

// every position the server sent this client (a put-back is one), from now on
function positionsSent (client) {
  const sent = []
  client.on('position', (p) => sent.push({ x: p.x, y: p.y, z: p.z }))
  return sent
}

// what `observer` is told of the player with entity id `id`, which stands at `from` (the
// observer was told of it while logging in): every position it learns (spawn, relative
// moves, teleports) from now on; `seen.last` is the latest
function watch (observer, id, from = null) {
  const seen = { positions: [], last: from }
  const at = (p) => {
    seen.last = p
    seen.positions.push(p)
  }
  const absolute = (packet) => {
    if (packet.entityId === id) at({ x: packet.x, y: packet.y, z: packet.z })
  }
  const relative = (packet) => {
    if (packet.entityId !== id || !seen.last) return
    at({ x: seen.last.x + packet.dX / 4096, y: seen.last.y + packet.dY / 4096, z: seen.last.z + packet.dZ / 4096 })
  }
  for (const name of ['named_entity_spawn', 'spawn_entity', 'entity_teleport', 'sync_entity_position']) observer.on(name, absolute)
  for (const name of ['rel_entity_move', 'entity_move_look']) observer.on(name, relative)
  return seen
}

// the largest distance from `from` among `positions` (horizontal, or vertical with 'y')
function farthest (positions, from, axis = null) {
  let most = 0
  for (const p of positions) {
    const d = axis === 'y' ? p.y - from.y : Math.hypot(p.x - from.x, p.z - from.z)
    if (d > most) most = d
  }
  return most
}

// a small honest move, then until `observer` is told of it: everything the server relayed of
// the moves before it has reached the observer by then
async function marker (t, client, seen, from, dx = 0.25) {
  const to = { x: from.x + dx, y: from.y, z: from.z }
  const told = new Promise((resolve, reject) => {
    const deadline = Date.now() + PUT_MS
    const poll = setInterval(() => {
      const l = seen.last
      if (l && Math.abs(l.x - to.x) < 0.05 && Math.abs(l.z - to.z) < 0.05) {
        clearInterval(poll)
        resolve()
      } else if (Date.now() > deadline) {
        clearInterval(poll)
        reject(new Error(`the observer was not told of the marker move to ${JSON.stringify(to)} (last seen ${JSON.stringify(l)})`))
      }
    }, 20)
  })
  move(client, to)
  await t.sync(client)
  await told
  return to
}

const round = (p) => p && { x: +p.x.toFixed(2), y: +p.y.toFixed(2), z: +p.z.toFixed(2) }

// the refusals the server counted for a player (GET /refusals), by kind
async function refusalsOf (t, username) {
  const all = await t.admin('GET', '/refusals')
  return { count: (all.byPlayer || {})[username] || 0, byKind: all.byKind || {} }
}

// a cheat and an observer on the square: the cheat at the centre (+ offset), the observer 3
// blocks north; `seen` is what the observer is told of the cheat from then on, `at` where
// the server has the cheat (after a marker move the observer was told of)
async function cheatAndObserver (t, prefix, offset = { x: 0, z: 0 }) {
  const s = await square(t)
  const cheat = await t.join(t.name(prefix))
  const observer = await t.join(t.name('watch'))
  const seen = watch(observer, cheat.entityId, await serverPosition(t, cheat.username))
  const start = { x: s.x + 0.5 + offset.x, y: s.y, z: s.z + 0.5 + offset.z }
  await put(t, observer, { x: s.x + 0.5 + offset.x, y: s.y, z: s.z - 2.5 + offset.z })
  await put(t, cheat, start)
  const at = await marker(t, cheat, seen, start)
  seen.positions.length = 0
  return { square: s, cheat, observer, at, seen }
}

// `cells` set to the block `name` (admin API /setblock); resolves once `client` has been sent
// every one of them
async function setBlocks (t, client, cells, name) {
  const pending = new Set(cells.map(c => `${c.x},${c.y},${c.z}`))
  const arrived = new Promise((resolve, reject) => {
    const timer = setTimeout(() => { client.removeListener('block_change', onChange); reject(new Error(`blocks not sent: ${[...pending]}`)) }, PUT_MS)
    function onChange (p) {
      pending.delete(`${p.location.x},${p.location.y},${p.location.z}`)
      if (pending.size) return
      clearTimeout(timer)
      client.removeListener('block_change', onChange)
      resolve()
    }
    client.on('block_change', onChange)
  })
  for (const c of cells) await t.admin('POST', '/command', { command: `/setblock ${c.x} ${c.y} ${c.z} ${name}` })
  await arrived
}

// a wall one block thick on the square: x = square.x + 2, z from square.z - 1 to + 1, two
// high; resolves once `client` has been sent every block of it; `remove()` takes it away
async function wall (t, client, s, block = 'stone') {
  const cells = []
  for (let z = s.z - 1; z <= s.z + 1; z++) for (let y = s.y; y <= s.y + 1; y++) cells.push({ x: s.x + 2, y, z })
  await setBlocks(t, client, cells, block)
  return { x: s.x + 2, remove: () => setBlocks(t, client, cells, 'air') }
}

// one position packet from beside a wall on the square to `dx` past the wall's near face:
// what the server kept, what the observer was told, the put-backs and the wall's blocks sent
// back to the cheat (the wall is removed afterwards)
async function moveAtWall (t, prefix, dx) {
  const { cheat, at, seen, square: s } = await cheatAndObserver(t, prefix, { x: 0.5, z: 0 })
  const w = await wall(t, cheat, s)
  try {
    const sent = positionsSent(cheat)
    const resent = []
    cheat.on('block_change', (p) => { if (p.location && p.location.x === w.x) resent.push(p.location) })
    const to = { x: w.x + dx, y: at.y, z: at.z }
    move(cheat, to)
    await t.sync(cheat)
    const after = await serverPosition(t, cheat.username)
    await marker(t, cheat, seen, after, -0.25)
    const toldX = Math.max(...seen.positions.map(p => p.x))
    return { wallX: w.x, at, to, after, toldX, putBacks: sent.length, resent: resent.length }
  } finally {
    await w.remove()
  }
}

module.exports = { setBlocks, wall, square, serverPosition, put, move, positionsSent, watch, farthest, marker, round, refusalsOf, cheatAndObserver, moveAtWall }
