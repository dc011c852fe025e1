'use strict'
// A body at rest (bots/body/lib/rest.js) on the embedded server: args port, admin URL.
// Prints, as JSON: over 60 ticks standing still, the ticks simulated and not and the position
// packets sent; then how far it fell when the block under it was taken away, whether it came
// down after a teleport into the air, how far it walked with controls pressed for 20 ticks,
// and how far it fell when the column under it was loaded anew without the block under it.
const path = require('path')
const { Body } = require(path.resolve(__dirname, '../../../bots/body/body.js'))
const { isResting } = require(path.resolve(__dirname, '../../../bots/body/lib/rest.js'))

const [port, adminUrl] = process.argv.slice(2).map(a => JSON.parse(a))
async function admin (route, body) {
  const url = new URL(adminUrl) // the token is the URL's password
  const res = await fetch(`${url.protocol}//${url.host}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${decodeURIComponent(url.password)}` },
    body: JSON.stringify(body)
  })
  if (!res.ok) throw new Error(`admin ${route} ${JSON.stringify(body)}: ${res.status} ${await res.text()}`)
}

const command = (text) => admin('/command', { command: text })

const WAIT_MS = 8000

// until `test()` holds at a physics tick of `bot` (or `ms` passed); whether it held
function until (bot, test, ms = WAIT_MS) {
  if (test()) return Promise.resolve(true)
  return new Promise((resolve) => {
    const done = (held) => {
      clearTimeout(timer)
      bot.removeListener('physicsTick', check)
      resolve(held)
    }
    const check = () => { if (test()) done(true) }
    const timer = setTimeout(() => done(false), ms)
    bot.on('physicsTick', check)
  })
}

// `n` physics ticks of `bot`
function ticks (bot, n) {
  return new Promise((resolve) => {
    let left = n
    const tick = () => {
      if (--left > 0) return
      bot.removeListener('physicsTick', tick)
      resolve()
    }
    bot.on('physicsTick', tick)
  })
}

// the block holding `bot` up: the one under its feet, or the one its feet stand in when that
// block is lower than a full one (a dirt path's top is at 15/16: feet at y + 0.9375)
const support = (bot) => bot.entity.position.offset(0, -1e-3, 0).floored()

// on the ground and at rest
const settle = (bot) => until(bot, () => bot.entity.onGround && isResting(bot))

// until `bot` emits `event` with arguments that pass `test` (or `ms` passed); whether it did
function event (bot, name, test = () => true, ms = WAIT_MS) {
  return new Promise((resolve) => {
    const done = (held) => {
      clearTimeout(timer)
      bot.removeListener(name, on)
      resolve(held)
    }
    const on = (...args) => { if (test(...args)) done(true) }
    const timer = setTimeout(() => done(false), ms)
    bot.on(name, on)
  })
}

async function main () {
  const name = `rest${process.pid % 10000}`
  const body = new Body({ name, host: '127.0.0.1', port }, {}, () => {}, () => {}, () => {})
  await body.start(30000)
  const bot = body.bot
  const out = {}
  const sent = { position: 0, other: 0 }
  const write = bot._client.write.bind(bot._client)
  bot._client.write = (name, params) => {
    if (name === 'position' || name === 'position_look') sent.position++
    else if (name === 'flying' || name === 'look') sent.other++
    return write(name, params)
  }
  await bot.waitForChunksToLoad()
  out.settled = await settle(bot)
  const rest = bot.physics.pianoRest
  const a = { skipped: rest.skipped, simulated: rest.simulated, position: sent.position }
  await ticks(bot, 60)
  out.standing = { ticks: 60, skipped: rest.skipped - a.skipped, simulated: rest.simulated - a.simulated, position_packets: sent.position - a.position }

  // the ground taken away: it falls
  const y0 = bot.entity.position.y
  const below = support(bot)
  const removed = event(bot, 'blockUpdate', (old, now) => now && now.position.equals(below))
  await command(`/setblock ${below.x} ${below.y} ${below.z} air`)
  await removed
  await until(bot, () => bot.entity.position.y <= y0 - 0.9)
  out.fell = y0 - bot.entity.position.y

  // put into the air by the server: it comes down
  await settle(bot)
  const y1 = bot.entity.position.y
  const moved = event(bot, 'forcedMove')
  await admin(`/players/${name}/teleport`, { x: bot.entity.position.x, y: y1 + 4, z: bot.entity.position.z })
  await moved
  await until(bot, () => !bot.entity.onGround) // in the air (mineflayer keeps the flag until a tick)
  await until(bot, () => bot.entity.onGround)
  out.came_down = { above_before: bot.entity.position.y - y1, on_ground: bot.entity.onGround }

  // controls pressed: it walks (and jumps out of the hole it fell into)
  await settle(bot)
  const x2 = bot.entity.position.clone()
  bot.setControlState('forward', true)
  bot.setControlState('jump', true)
  await ticks(bot, 20)
  bot.clearControlStates()
  out.walked = bot.entity.position.distanceTo(x2)

  // the block under it taken away, the client told so by the column under it loaded anew (as
  // a server resends a column), not by a block change: it falls. First put in the middle of
  // a block, so that this block alone holds it up
  const centred = event(bot, 'forcedMove')
  const at = bot.entity.position.floored()
  await admin(`/players/${name}/teleport`, { x: at.x + 0.5, y: bot.entity.position.y, z: at.z + 0.5 })
  await centred
  await ticks(bot, 1) // the move seen by a tick: awake until it rests again
  await settle(bot)
  const y3 = bot.entity.position.y
  const under = support(bot)
  const hidden = bot._client.listeners('block_change')
  bot._client.removeAllListeners('block_change')
  const told = new Promise((resolve) => {
    const timer = setTimeout(resolve, WAIT_MS)
    bot._client.once('block_change', () => { clearTimeout(timer); resolve() })
  })
  await command(`/setblock ${under.x} ${under.y} ${under.z} air`)
  await told
  for (const listener of hidden) bot._client.on('block_change', listener)
  const cx = Math.floor(under.x / 16)
  const cz = Math.floor(under.z / 16)
  const column = bot.world.getColumn(cx, cz)
  column.setBlockStateId(under.offset(-cx * 16, 0, -cz * 16), 0)
  bot.world.setColumn(cx, cz, column)
  await until(bot, () => bot.entity.position.y <= y3 - 0.9)
  out.column_fell = y3 - bot.entity.position.y
  await body.quit()
  process.stdout.write(JSON.stringify(out) + '\n')
  process.exit(0)
}

main().catch((err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
