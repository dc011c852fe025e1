'use strict'
// N simple walkers in one process, for `piano bench server`.
//   node walker.js '{"host": "127.0.0.1", "port": 25565, "version": "1.21.4", "bots": 10, "prefix": "walker", "spacingMs": 100}'
// Each bot walks forward, turns to a random direction every 2-4 s (jumping
// when blocked) and stays within ~24 blocks of the village centre.
// stdout: JSON lines {event: spawned|kicked|end|error, bot, ...} and {event: "all_spawned", seconds}.
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../node_modules')
const mineflayer = require(path.join(NM, 'mineflayer'))

const opts = JSON.parse(process.argv[2] || '{}')
if (!opts.version) throw new Error('walker.js: opts.version (the Minecraft version served) is required')
const n = opts.bots || 10
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const t0 = Date.now()
let spawned = 0

function startBot (i) {
  const name = `${opts.prefix || 'walker'}${i}`
  const bot = mineflayer.createBot({
    host: opts.host || '127.0.0.1',
    port: opts.port || 25565,
    username: name,
    version: opts.version, // the server's (required: piano bench server passes it)
    auth: 'offline',
    physicsEnabled: true
  })
  let timer = null
  bot.once('spawn', () => {
    spawned++
    out({ event: 'spawned', bot: name, seconds: (Date.now() - t0) / 1000 })
    if (spawned === n) out({ event: 'all_spawned', seconds: (Date.now() - t0) / 1000 })
    const home = bot.entity.position.clone()
    const turn = () => {
      const p = bot.entity.position
      let yaw = Math.random() * Math.PI * 2
      if (p.distanceTo(home) > 24) yaw = Math.atan2(-(home.x - p.x), -(home.z - p.z)) // head home
      bot.look(yaw, 0, true).catch(() => {})
      bot.setControlState('forward', true)
      bot.setControlState('sprint', Math.random() < 0.3)
      timer = setTimeout(turn, 2000 + Math.random() * 2000)
    }
    turn()
    bot.on('physicsTick', () => {
      bot.setControlState('jump', bot.entity.isCollidedHorizontally)
    })
  })
  bot.on('kicked', (reason) => out({ event: 'kicked', bot: name, reason: String(reason) }))
  bot.on('end', (reason) => { clearTimeout(timer); out({ event: 'end', bot: name, reason: String(reason) }) })
  bot.on('error', (err) => out({ event: 'error', bot: name, error: String(err && err.message) }))
  return bot
}

const bots = []
for (let i = 0; i < n; i++) setTimeout(() => bots.push(startBot(i)), i * (opts.spacingMs ?? 100))

function quit () {
  for (const b of bots) { try { b.quit() } catch (e) {} }
  setTimeout(() => process.exit(0), 1000)
}
process.on('SIGTERM', quit)
process.on('SIGINT', quit)
process.stdin.on('end', quit)
process.stdin.resume()
const parent = process.ppid
setInterval(() => { if (process.ppid !== parent) quit() }, 1000).unref()
