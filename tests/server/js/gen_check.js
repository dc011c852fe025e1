'use strict'
// Generates 16x16 chunks around the village with the generator and prints a
// digest, timing and block statistics (JSON) for the determinism test.
const path = require('path')
const crypto = require('crypto')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const registry = require(path.join(NM, 'prismarine-registry'))('1.16.5')
const generation = require(path.resolve(__dirname, '../../../bots/server/generator'))
const { seed, layout } = JSON.parse(process.argv[2])
const t0 = Date.now()
const gen = generation({ seed, villageSeed: seed, layout, registry })
const planMs = Date.now() - t0
const hash = crypto.createHash('sha256')
const blocks = {}
const maxY = {}
let n = 0
let genMs = 0
for (let cx = -5; cx < 5; cx++) {
  for (let cz = -5; cz < 5; cz++) {
    const tc = Date.now()
    const chunk = gen(cx, cz)
    genMs += Date.now() - tc
    n++
    hash.update(chunk.dump())
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        for (let y = 0; y < 120; y++) {
          const name = registry.blocksByStateId[chunk.getBlockStateId({ x, y, z })].name
          blocks[name] = (blocks[name] || 0) + 1
          if (name.endsWith('_ore')) maxY[name] = Math.max(maxY[name] || 0, y)
        }
      }
    }
  }
}
process.stdout.write(JSON.stringify({ digest: hash.digest('hex'), chunks: n, planMs, msPerChunk: genMs / n, blocks, maxY }) + '\n')
