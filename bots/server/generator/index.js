'use strict'
// flying-squid world generator for the village (settings.generation.name is
// this file's path). flying-squid calls `generation(options)` once and then
// the returned function for every new chunk column: (chunkX, chunkZ) => Chunk.
//
// options: { seed, layout, registry } (layout: see plan.js / layout.py)
// The plan (heights, structures, cave, places) is computed once; each chunk
// is terrain + trees + the plan's blocks in that chunk. Deterministic.

const { VillagePlan } = require('./plan')

const plans = new Map()

function getPlan ({ seed, layout, registry }) {
  const key = registry.version.minecraftVersion + ':' + seed + ':' + JSON.stringify(layout || {})
  let plan = plans.get(key)
  if (!plan) {
    plan = new VillagePlan({ seed, layout, registry })
    plans.set(key, plan)
  }
  return plan
}

function generation (options) {
  const registry = options.registry
  const Chunk = require('prismarine-chunk')(registry)
  const plan = getPlan({ seed: options.villageSeed ?? options.seed ?? 0, layout: options.layout, registry })
  const S = plan.S
  const ids = {
    bedrock: S.get('bedrock'),
    stone: S.get('stone'),
    dirt: S.get('dirt'),
    grass_block: S.get('grass_block'),
    sand: S.get('sand'),
    sandstone: S.get('sandstone'),
    water: S.get('water'),
    gravel: S.get('gravel'),
    grass: S.get('grass'),
    dandelion: S.get('dandelion'),
    poppy: S.get('poppy'),
    clay: S.get('clay')
  }
  const oreIds = {}
  for (const name of ['coal_ore', 'iron_ore', 'gold_ore', 'diamond_ore', 'redstone_ore', 'lapis_ore']) oreIds[name] = S.get(name)
  const plains = registry.biomesByName.plains.id
  const pos = { x: 0, y: 0, z: 0 }

  function set (chunk, x, y, z, state) {
    pos.x = x; pos.y = y; pos.z = z
    chunk.setBlockStateId(pos, state)
  }

  function generateChunk (chunkX, chunkZ) {
    const chunk = new Chunk()
    const top = (chunk.minY ?? 0) + (chunk.worldHeight ?? 256) // 1.18+: -64..320
    const x0 = chunkX * 16
    const z0 = chunkZ * 16
    const tops = new Int16Array(256)
    for (let lx = 0; lx < 16; lx++) {
      for (let lz = 0; lz < 16; lz++) {
        const x = x0 + lx
        const z = z0 + lz
        const col = plan.column(x, z)
        const h = col.height
        set(chunk, lx, 0, lz, ids.bedrock)
        const dirtDepth = col.top === 'stone' ? 0 : 3
        const richFrom = col.rich ? h - 6 : 256
        for (let y = 1; y < h - dirtDepth; y++) {
          const ore = y >= richFrom ? plan.wild.richOreAt(x, y, z) : (y < h - 1 || col.hill > 3 ? plan.oreAt(x, y, z) : null)
          set(chunk, lx, y, lz, ore ? oreIds[ore] : ids.stone)
        }
        for (let y = Math.max(1, h - dirtDepth); y < h; y++) {
          set(chunk, lx, y, lz, col.top === 'sand' ? ids.sandstone : (col.top === 'gravel' ? ids.stone : ids.dirt))
        }
        const topOre = col.rich ? plan.wild.richOreAt(x, h, z) : null
        set(chunk, lx, h, lz, topOre ? oreIds[topOre] : ids[col.top])
        let top = h
        if (col.water > 0) {
          for (let y = h + 1; y <= col.water; y++) set(chunk, lx, y, lz, ids.water)
          if ((x + z) % 5 === 0) set(chunk, lx, h, lz, ids.clay)
          top = col.water
        } else if (col.top === 'grass_block' && !plan.treeBlocked.has(x + ',' + z)) {
          const r = plan.flatWeight(x, z) > 0 ? ((x * 73856093) ^ (z * 19349663)) >>> 0 : 0
          const u = (r % 1000) / 1000
          if (u > 0.0 && u < 0.08) { set(chunk, lx, h + 1, lz, ids.grass); top = h + 1 } else if (u > 0.995) { set(chunk, lx, h + 1, lz, (r & 1024) ? ids.dandelion : ids.poppy); top = h + 1 }
        }
        tops[lx * 16 + lz] = top
      }
    }
    // trees (may cross chunk borders: only write our part)
    const emit = (x, y, z, state, onlyAir) => {
      const lx = x - x0
      const lz = z - z0
      if (lx < 0 || lx > 15 || lz < 0 || lz > 15 || y < 1 || y > 255) return
      pos.x = lx; pos.y = y; pos.z = lz
      if (onlyAir) {
        const cur = chunk.getBlockStateId(pos)
        if (cur !== 0 && cur !== ids.grass) return
      }
      chunk.setBlockStateId(pos, state)
      if (y > tops[lx * 16 + lz]) tops[lx * 16 + lz] = y
    }
    for (const t of plan.treesNear(x0, z0, x0 + 15, z0 + 15)) plan.treeBlocks(t, emit)
    // planned blocks
    const feats = plan.features.get(chunkX + ',' + chunkZ)
    if (feats) {
      for (const [x, y, z, state, onlyIfSolid] of feats) {
        const lx = x - x0
        const lz = z - z0
        pos.x = lx; pos.y = y; pos.z = lz
        if (onlyIfSolid) {
          const cur = chunk.getBlockStateId(pos)
          if (cur === 0 || cur === ids.water) continue
        }
        chunk.setBlockStateId(pos, state)
        if (state !== 0 && y > tops[lx * 16 + lz]) tops[lx * 16 + lz] = y
        else if (state === 0 && y === tops[lx * 16 + lz]) {
          let t = y - 1
          pos.y = t
          while (t > 0 && chunk.getBlockStateId(pos) === 0) { t--; pos.y = t }
          tops[lx * 16 + lz] = t
        }
      }
    }
    // sky light above the surface; biomes
    for (let lx = 0; lx < 16; lx++) {
      for (let lz = 0; lz < 16; lz++) {
        pos.x = lx; pos.z = lz
        for (let y = tops[lx * 16 + lz] + 1; y < top; y++) {
          pos.y = y
          chunk.setSkyLight(pos, 15)
        }
      }
    }
    if (Array.isArray(chunk.biomes) && typeof chunk.biomes[0] === 'number') chunk.biomes.fill(plains)
    else {
      // 1.18+: one biome per 4x4x4 cell, in sections from minY
      for (let y = chunk.minY; y < top; y += 4) {
        for (let x = 0; x < 16; x += 4) for (let z = 0; z < 16; z += 4) chunk.setBiome({ x, y, z }, plains)
      }
    }
    return chunk
  }
  return generateChunk
}

generation.getPlan = getPlan
module.exports = generation
