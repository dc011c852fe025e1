'use strict'
// Honest moves the movement checks (bots/server/plugins/movement.js) must never refuse, sent
// by a raw client as a player's game would send them, on the village square:
// - catch_up: a client that stood still 2 s (its loop stalled) catches up 40 ticks of
//   sprinting (0.28 block a tick) around the square, 4 packets every 50 ms (mineflayer's
//   catch-up), then sprints on in real time for 2 s
// - jump: a vanilla jump (0.42 block/tick up, gravity 0.08, drag 0.98) and its landing
// - fall: teleported 20 blocks above the square (admin API), falls to the ground with
//   vanilla's velocities, the last packets arriving in one burst
// Prints { refusals: {check: n}, ended: {check: [claimed end, server's position]} }.
//   node movement_honest_check.js '{"port": .., "version": .., "adminPort": .., "adminTokenFile": ..}'
const fs = require('fs')
const path = require('path')
const { createHarness } = require(path.resolve(__dirname, '../../../bots/hostile/harness'))
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

async function main () {
  const t = createHarness({
    host: '127.0.0.1',
    port: opts.port,
    version: opts.version,
    adminPort: opts.adminPort,
    adminToken: fs.readFileSync(opts.adminTokenFile, 'utf8').trim(),
    log: () => {}
  })
  const s = await m.square(t)
  const out = { refusals: {}, ended: {} }
  try {
    for (const [name, check] of Object.entries({ catch_up: catchUp, jump, fall })) {
      const client = await t.join(t.name(name))
      const end = await check(t, client, s)
      await t.sync(client)
      await sleep(300) // the last move's asynchronous update on the server
      out.refusals[name] = (await m.refusalsOf(t, client.username)).count
      out.ended[name] = [m.round(end), m.round(await m.serverPosition(t, client.username)), client.kicked]
      await t.close(client)
    }
  } finally {
    await t.closeAll()
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
