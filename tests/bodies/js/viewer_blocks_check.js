'use strict'
// The 3D view's blocks at a version: generated village columns (seed 1234, 4x4 chunks around the
// town hall) as the page reads them, once raw (the body's state ids read as the assets
// version's, what prismarine-viewer does alone) and once translated (lib/viewer_blocks.js).
//   node viewer_blocks_check.js '{"version": "26.1"}'
//   node viewer_blocks_check.js '{"assets": ["26.1", "1.7.10"]}'  -> {version: assets or {error}}
// prints {version, to, identity, blocks, wrongRaw, wrongTranslated, wrongNames, missing, msPerColumn}
// where a block counts wrong when the page's block name differs from the body's (its former
// name where Mojang renamed it; blocks the assets version lacks are drawn as air and listed in
// missing, not counted wrong).
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
module.paths.unshift(NM)
const { version, assets } = JSON.parse(process.argv[2])
const { assetsVersion, blockTranslator } = require(path.resolve(__dirname, '../../../bots/body/lib/viewer_blocks'))
if (assets) {
  const out = {}
  for (const v of assets) {
    try { out[v] = assetsVersion(v) } catch (err) { out[v] = { error: err.message } }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
  process.exit(0)
}
const registry = require('prismarine-registry')(version)
const generation = require(path.resolve(__dirname, '../../../bots/server/generator'))
const { RENAMED } = require(path.resolve(__dirname, '../../../bots/server/mc_names'))
const former = Object.fromEntries(Object.entries(RENAMED).map(([a, b]) => [b, a]))

const t = blockTranslator(registry, version)
const dst = require('prismarine-registry')(t.to)
const DstChunk = require('prismarine-chunk')(dst)
const gen = generation({ seed: 1234, villageSeed: 1234, registry })
let blocks = 0
let wrongRaw = 0
let wrongTranslated = 0
const wrongNames = {}
let ms = 0
let columns = 0
for (let cx = -2; cx < 2; cx++) {
  for (let cz = -2; cz < 2; cz++) {
    const src = gen(cx, cz)
    const json = src.toJson()
    const t0 = Date.now()
    const translated = DstChunk.fromJson(t.column(json))
    ms += Date.now() - t0
    columns++
    const raw = DstChunk.fromJson(json)
    const minY = src.minY ?? 0
    const p = { x: 0, y: 0, z: 0 }
    for (let y = minY; y < minY + (src.worldHeight ?? 256); y++) {
      p.y = y
      for (let z = 0; z < 16; z++) {
        p.z = z
        for (let x = 0; x < 16; x++) {
          p.x = x
          const name = registry.blocksByStateId[src.getBlockStateId(p)].name
          if (name === 'air') continue
          blocks++
          const rawName = dst.blocksByStateId[raw.getBlockStateId(p)]?.name
          if (rawName !== name) wrongRaw++
          const got = dst.blocksByStateId[translated.getBlockStateId(p)]?.name
          if (got !== name && got !== former[name] && !t.missing.has(name)) {
            wrongTranslated++
            wrongNames[name] = (wrongNames[name] || 0) + 1
          }
        }
      }
    }
  }
}
process.stdout.write(JSON.stringify({
  version, to: t.to, identity: t.identity, blocks, wrongRaw, wrongTranslated, wrongNames, missing: [...t.missing], msPerColumn: ms / columns
}) + '\n')
