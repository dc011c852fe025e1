'use strict'
// Honest moves the movement checks (bots/server/plugins/movement.js) must never refuse, sent
// by a raw client as a player's game would send them, on the village square:
// - catch_up: a client that stood still 2 s (its loop stalled) catches up 40 ticks of
//   sprinting (0.28 block a tick) around the square, 4 packets every 50 ms (mineflayer's
//   catch-up), then sprints on in real time for 2 s
// - jump: a vanilla jump (0.42 block/tick up, gravity 0.08, drag 0.98) and its landing
// - fall: teleported 20 blocks above the square (admin API), falls to the ground with
//   vanilla's velocities, the last packets arriving in one burst
// - corner: one move of 0.95 block past the corner of a pillar two blocks high, whose straight
//   line clips the corner (the box 0.27 into it half way) and which the move's larger axis
//   (Z) first, then X, passes clear of: vanilla collides a move axis by axis, so the move is
//   one a vanilla server accepts
// - corner_jump: the first tick of a jump past a pillar's corner as a skills-bench body sent
//   it (0.07 east, 0.42 up, 0.46 south, the box starting 0.05 into the pillar's x range):
//   free only X before Z, the order mineflayer's physics collides in (vanilla's client: the
//   larger axis first), so the check accepts either order
// And one the checks must refuse, to see the per-packet bound on its own:
// - bound: with the whole budget (nothing moved since login), one move of 11 blocks: refused
//   as moved too quickly (vanilla's 10 blocks a packet), the player left where it was
// Prints { refusals: {check: n}, kinds: {check: {kind: n}}, ended: {check: [expected end,
// server's position, kick]} }.
//   node movement_honest_check.js '{"port": .., "version": .., "adminPort": .., "adminTokenFile": ..}'
const path = require('path')
const { harnessFromSettings } = require(path.resolve(__dirname, '../../../bots/hostile/harness'))
const m = require(path.resolve(__dirname, '../../../bots/hostile/lib/movement'))

const opts = JSON.parse(process.argv[2])
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

// on a circle of radius 2.5 around the square's centre, `ticks` ticks of sprinting
function* sprintAround (s, ticks, step = 0.28) {
  const r = 2.5
  for (let i = 1; i <= ticks; i++) {
    const a = i * step / r
    yield { x: s.x + 0.5 + r * Math.cos(a), y: s.y, z: s.z + 0.5 + r * Math.sin(a) }
  }
}

async function catchUp (t, client, s) {
  await m.put(t, client, { x: s.x + 3, y: s.y, z: s.z + 0.5 })
  await sleep(2000) // the stall: nothing sent
  const moves = [...sprintAround(s, 80)]
  for (let i = 0; i < 40; i += 4) { // 40 ticks owed, 4 per turn
    for (const p of moves.slice(i, i + 4)) m.move(client, p)
    await sleep(50)
  }
  for (const p of moves.slice(40)) { // then real time
    m.move(client, p)
    await sleep(50)
  }
  return moves[moves.length - 1]
}

async function jump (t, client, s) {
  const at = { x: s.x + 0.5, y: s.y, z: s.z + 0.5 }
  await m.put(t, client, at)
  let y = at.y
  let v = 0.42
  for (;;) {
    y += v
    v = (v - 0.08) * 0.98
    if (y <= at.y) break
    m.move(client, { x: at.x, y, z: at.z }, false)
    await sleep(50)
  }
  m.move(client, at, true)
  return at
}

async function fall (t, client, s) {
  const top = { x: s.x + 1.5, y: s.y + 20, z: s.z + 1.5 }
  await m.put(t, client, top)
  let y = top.y
  let v = 0
  const moves = []
  for (;;) {
    v = (v - 0.08) * 0.98
    y += v
    if (y <= s.y) break
    moves.push({ x: top.x, y, z: top.z })
  }
  const end = { x: top.x, y: s.y, z: top.z }
  const half = Math.floor(moves.length / 2)
  for (const p of moves.slice(0, half)) { m.move(client, p, false); await sleep(50) }
  for (const p of moves.slice(half)) m.move(client, p, false) // the rest in one burst
  m.move(client, end, true)
  return end
}

async function corner (t, client, s) {
  const b = { x: s.x + 1, z: s.z + 1 } // the pillar's column
  const pillar = [{ x: b.x, y: s.y, z: b.z }, { x: b.x, y: s.y + 1, z: b.z }]
  const start = { x: b.x - 0.35, y: s.y, z: b.z + 0.3 } // west of the pillar
  const end = { x: b.x + 0.3, y: s.y, z: b.z - 0.4 } // north of it
  await m.setBlocks(t, client, pillar, 'stone')
  try {
    await m.put(t, client, start)
    m.move(client, end)
    await t.sync(client)
  } finally {
    await m.setBlocks(t, client, pillar, 'air')
  }
  return end
}

async function cornerJump (t, client, s) {
  const b = { x: s.x + 1, z: s.z + 1 }
  const pillar = [{ x: b.x, y: s.y, z: b.z }, { x: b.x, y: s.y + 1, z: b.z }]
  const start = { x: b.x + 1.25, y: s.y, z: b.z - 0.46 } // north-east of the pillar
  const end = { x: b.x + 1.32, y: s.y + 0.42, z: b.z } // east of it, in the air
  await m.setBlocks(t, client, pillar, 'stone')
  try {
    await m.put(t, client, start)
    m.move(client, end, false)
    await t.sync(client)
  } finally {
    await m.setBlocks(t, client, pillar, 'air')
  }
  return end
}

async function bound (t, client, s) {
  const start = { x: s.x + 0.5, y: s.y, z: s.z + 0.5 }
  await m.put(t, client, start)
  m.move(client, { x: start.x + 11, y: start.y, z: start.z })
  return start // where the server must have left it
}

// until the server has `client` at `at` (or a few seconds passed): the last move of a check
// is applied asynchronously after its packet was read
async function serverAt (t, client, at, ms = 5000) {
  const deadline = Date.now() + ms
  for (;;) {
    const p = await m.serverPosition(t, client.username)
    if (Math.max(Math.abs(p.x - at.x), Math.abs(p.y - at.y), Math.abs(p.z - at.z)) < 0.01) return
    if (Date.now() > deadline) return
    await sleep(50)
  }
}

async function main () {
  const t = harnessFromSettings(opts)
  const s = await m.square(t)
  const out = { refusals: {}, kinds: {}, ended: {} }
  try {
    for (const [name, check] of Object.entries({ catch_up: catchUp, jump, fall, corner, corner_jump: cornerJump, bound })) {
      const client = await t.join(t.name(name))
      const before = (await m.refusalsOf(t, client.username)).byKind
      const end = await check(t, client, s)
      await t.sync(client)
      await serverAt(t, client, end) // the last move's asynchronous update on the server
      const after = await m.refusalsOf(t, client.username)
      out.refusals[name] = after.count
      out.kinds[name] = {}
      for (const [kind, n] of Object.entries(after.byKind)) if (n !== (before[kind] || 0)) out.kinds[name][kind] = n - (before[kind] || 0)
      out.ended[name] = [m.round(end), m.round(await m.serverPosition(t, client.username)), client.kicked]
      await t.close(client)
    }
  } finally {
    await t.closeAll()
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
