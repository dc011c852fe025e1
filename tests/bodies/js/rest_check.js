'use strict'
// A body at rest (bots/body/lib/rest.js) on the embedded server: args port, admin URL.
// Prints, as JSON: over 3 s standing still, the ticks simulated and not and the position
// packets sent; then whether it fell when the block under it was taken away, whether it
// came down after a teleport into the air, and how far it walked with controls pressed.
const path = require('path')
const { Body } = require(path.resolve(__dirname, '../../../bots/body/body.js'))

const [port, adminUrl] = process.argv.slice(2).map(a => JSON.parse(a))
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

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

async function settle (bot, ms = 8000) {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (bot.entity.onGround && bot.physics.pianoRest.quiet >= 2) return true
    await sleep(50)
  }
  return false
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
  await sleep(1000) // the chunks around it
  out.settled = await settle(bot)
  const rest = bot.physics.pianoRest
  const a = { skipped: rest.skipped, simulated: rest.simulated, position: sent.position }
  await sleep(3000)
  out.standing = { skipped: rest.skipped - a.skipped, simulated: rest.simulated - a.simulated, position_packets: sent.position - a.position }

  // the ground taken away: it falls
  const p = bot.entity.position.floored()
  const y0 = bot.entity.position.y
  await command(`/setblock ${p.x} ${p.y - 1} ${p.z} air`)
  await sleep(1500)
  out.fell = y0 - bot.entity.position.y

  // put into the air by the server: it comes down
  await settle(bot)
  const y1 = bot.entity.position.y
  await admin(`/players/${name}/teleport`, { x: bot.entity.position.x, y: y1 + 4, z: bot.entity.position.z })
  await sleep(2500)
  out.came_down = { above_before: bot.entity.position.y - y1, on_ground: bot.entity.onGround }

  // controls pressed: it walks (and jumps out of the hole it fell into)
  await settle(bot)
  const x2 = bot.entity.position.clone()
  bot.setControlState('forward', true)
  bot.setControlState('jump', true)
  await sleep(1000)
  bot.clearControlStates()
  out.walked = bot.entity.position.distanceTo(x2)
  await body.quit()
  process.stdout.write(JSON.stringify(out) + '\n')
  process.exit(0)
}

main().catch((err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
