'use strict'
// scan.js's blocksOf against mineflayer's own findBlocks (its blocks plugin on a stand-in bot,
// no server) on made-up worlds of one version: random logs and sponges at random bot
// positions, and one world where the nearest log is two section layers away and others one
// layer away (mineflayer takes the layer's, a nearest-first search the nearer one). Prints
// {"version", "searches", "same", "layered": [mineflayer's], "ours": [blocksOf's]}.
const path = require('path')
const { EventEmitter } = require('events')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const req = (name) => require(path.join(NM, name))
const { Vec3 } = req('vec3')
const blocksPlugin = req('mineflayer/lib/plugins/blocks')
const { blocksOf } = require('./scan')

const version = JSON.parse(process.argv[2] || '"1.21.4"')
const registry = req('prismarine-registry')(version)
const Chunk = req('prismarine-chunk')(registry)
const World = req('prismarine-world')(registry)
const newer = registry.version['>=']('1.18')
const minY = newer ? -64 : 0
const height = newer ? 384 : 256
const { oak_log: log, sponge, stone } = registry.blocksByName

let seed = 7
const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }

function standIn () {
  const bot = new EventEmitter()
  bot._client = new EventEmitter()
  bot.registry = registry
  bot.version = version
  bot.game = { minY, height }
  bot.entity = { position: new Vec3(0.5, 64, 0.5) }
  blocksPlugin(bot, { version })
  return bot
}

async function worldOf (fill) {
  const world = new World(null)
  for (let cx = -8; cx <= 8; cx++) {
    for (let cz = -8; cz <= 8; cz++) {
      const chunk = new Chunk({ minY, worldHeight: height })
      fill(chunk, cx, cz)
      await world.setColumn(cx, cz, chunk)
    }
  }
  return world.sync
}

const pillar = (chunk, x, z, block, h = 5) => {
  for (let y = 64; y < 64 + h; y++) chunk.setBlockStateId(new Vec3(x & 15, y, z & 15), block.defaultState)
}

async function main () {
  const bot = standIn()
  bot.world = await worldOf((chunk, cx, cz) => {
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        for (let y = 58; y < 60; y++) chunk.setBlockStateId(new Vec3(x, y, z), stone.defaultState)
        if (rnd() < 0.01) pillar(chunk, x, z, log)
        if (rnd() < 0.0005) pillar(chunk, x, z, sponge, 1)
      }
    }
  })
  let searches = 0
  let same = 0
  for (let k = 0; k < 10; k++) {
    bot.entity.position = new Vec3(Math.floor(rnd() * 100 - 50) + 0.5, 64 + Math.floor(rnd() * 10), Math.floor(rnd() * 100 - 50) + 0.5)
    for (const [block, count, maxDistance] of [[log, 12, 64], [log, 4, 64], [sponge, 4, 64], [log, 1, 16], [sponge, 1, 48]]) {
      const keep = (b) => b.position.y !== 66 // a filter, as the collect's (exposed, not given up)
      const theirs = bot.findBlocks({ matching: block.id, useExtraInfo: keep, maxDistance, count }).map(String)
      const ours = blocksOf(bot, block.id, maxDistance, count, keep).map(String)
      searches++
      if (JSON.stringify(theirs) === JSON.stringify(ours)) same++
    }
  }
  bot.world = await worldOf((chunk, cx, cz) => {
    if (cx === 0 && cz === 1) pillar(chunk, 8, 20, log) // layer 1, 21 blocks away
    if (cx === -1 && cz === -1) pillar(chunk, -6, -6, log) // layer 2, 9 blocks away
    if (cx === -2 && cz === 0) pillar(chunk, -20, 3, log) // the first section of layer 2
  })
  bot.entity.position = new Vec3(0.5, 64, 0.5)
  const layered = bot.findBlocks({ matching: log.id, useExtraInfo: () => true, maxDistance: 64, count: 2 }).map(String)
  const ours = blocksOf(bot, log.id, 64, 2, () => true).map(String)
  process.stdout.write(JSON.stringify({ version, searches, same, layered, ours }) + '\n')
}

main().catch((err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
