'use strict'
// The wild: the world beyond the village, generated on demand at any distance
// and in every direction, deterministic for the seed. plan.js blends it in
// between WILD_FROM and WILD_FULL blocks from the village centre.
//
// What is where (bots/server/README.md, "The wild"):
//   - rolling grassland with forests: biome noise (scale ~90 blocks) picks
//     forest (oak + birch), taiga (spruce + birch) or plains (scattered oak,
//     birch and spruce); every place has trees of two species or more within
//     ~64 blocks;
//   - stone outcrops: about two in three 24x24 cells hold a dome of bare
//     stone (radius 3-6, 2-4 high, climbable) whose surface and inside show coal ore in
//     clusters and often iron ore; higher ground (mountains, scale ~160)
//     turns to bare stone with the same ores above y 76;
//   - ponds and lakes where the land dips below the water level (y 61):
//     water over sand and clay, sand beaches around them;
//   - below: stone with vanilla-like ores (plan.js ORES), bedrock at y 0;
//   - animals (cows, sheep, pigs, chickens): plugins/wild.js spawns herds per
//     chunk (herdAt) as players come near.

const { hash, unit, noise2, smooth } = require('./random')

const WILD_FROM = 80 // blocks from the village centre: village terrain inside
const WILD_FULL = 120 // wild terrain outside, a blend between
const SEA = 61 // water level of ponds and lakes
const OUTCROP_CELL = 24
const HERD_CHUNK_P = 0.1 // chance that a chunk holds a herd
const HERD_SPECIES = ['cow', 'sheep', 'pig', 'chicken']

// clustered ores of bare stone (outcrops, mountains): cell size 2
const RICH_ORES = [
  { name: 'iron_ore', p: 0.1, fill: 0.5 },
  { name: 'coal_ore', p: 0.22, fill: 0.6 }
]

class Wild {
  constructor (seed, G) {
    this.seed = seed >>> 0
    this.G = G
  }

  biome (x, z) {
    const b = noise2(this.seed ^ 0xb10e, x, z, 90) * 0.8 + noise2(this.seed ^ 0xb10f, x, z, 23) * 0.2
    if (b < 0.36) return 'taiga'
    if (b < 0.62) return 'forest'
    return 'plains'
  }

  // the outcrop of the cell (gx, gz), or null
  outcrop (gx, gz) {
    if (unit(this.seed, gx, gz, 0x0c) >= 0.68) return null
    const h = hash(this.seed, gx, gz, 0x0d)
    const r = 3 + (h % 4)
    const margin = r + 1
    const span = OUTCROP_CELL - 2 * margin
    return {
      x: gx * OUTCROP_CELL + margin + ((h >>> 4) % span),
      z: gz * OUTCROP_CELL + margin + ((h >>> 12) % span),
      r,
      height: 2 + ((h >>> 20) % (Math.floor(r * 0.7) - 1)) // 2-4: climbable steps
    }
  }

  // height an outcrop adds to the column (0 outside every outcrop)
  outcropBump (x, z) {
    const gx = Math.floor(x / OUTCROP_CELL)
    const gz = Math.floor(z / OUTCROP_CELL)
    const o = this.outcrop(gx, gz) // an outcrop stays inside its own cell
    if (!o) return 0
    const wob = 0.8 + 0.4 * noise2(this.seed ^ 0x0e, x, z, 3)
    const d = Math.sqrt((x - o.x) ** 2 + (z - o.z) ** 2) / (o.r * wob)
    if (d >= 1) return 0
    return Math.max(1, Math.round(o.height * smooth(1 - d) + 0.5))
  }

  // { height, top, water, hill, rich } of a wild column
  column (x, z) {
    const G = this.G
    const land = (noise2(this.seed ^ 0x1a, x, z, 70) - 0.5) * 16 + (noise2(this.seed ^ 0x1b, x, z, 21) - 0.5) * 5
    const m = noise2(this.seed ^ 0x1c, x, z, 160)
    const mountain = m > 0.62 ? 22 * smooth(Math.min(1, (m - 0.62) / 0.3)) : 0
    const base = Math.round(G + 1 + land + mountain)
    if (base < SEA) {
      return { height: base, top: base >= SEA - 2 ? 'sand' : (unit(this.seed, x, z, 0x5a) < 0.5 ? 'sand' : 'gravel'), water: SEA, hill: 0, rich: false }
    }
    if (base <= SEA + 1 && noise2(this.seed ^ 0x5b, x, z, 11) < 0.7) {
      return { height: base, top: 'sand', water: -1, hill: 0, rich: false }
    }
    if (base >= G + 13) return { height: base, top: 'stone', water: -1, hill: 5, rich: true }
    const bump = this.outcropBump(x, z)
    if (bump > 0) return { height: base + bump, top: 'stone', water: -1, hill: 5, rich: true }
    return { height: base, top: 'grass_block', water: -1, hill: 0, rich: false }
  }

  // ore of bare stone (outcrops, mountains) near the surface, or null
  richOreAt (x, y, z) {
    for (let i = 0; i < RICH_ORES.length; i++) {
      const o = RICH_ORES[i]
      if (unit(this.seed, x >> 1, y >> 1, z >> 1, 0x40 + i) >= o.p) continue
      if (unit(this.seed, x, y, z, 0x48 + i) < o.fill) return o.name
    }
    return null
  }

  // tree density and species at a grass column
  treeDensity (x, z) {
    const b = this.biome(x, z)
    if (b === 'plains') return 0.035
    // clearings inside forests
    return noise2(this.seed ^ 0x7c, x, z, 15) < 0.25 ? 0.05 : (b === 'forest' ? 0.45 : 0.4)
  }

  treeSpecies (x, z, h) {
    const b = this.biome(x, z)
    const u = ((h >>> 8) % 100) / 100
    if (b === 'taiga') return u < 0.7 ? 'spruce' : 'birch'
    if (b === 'forest') return u < 0.6 ? 'oak' : 'birch'
    return u < 0.5 ? 'oak' : (u < 0.8 ? 'birch' : 'spruce')
  }

  // the herd of a chunk column: [{name, x, z}] (y from the terrain), or []
  herdAt (chunkX, chunkZ) {
    if (unit(this.seed, chunkX, chunkZ, 0xa2) >= HERD_CHUNK_P) return []
    const h = hash(this.seed, chunkX, chunkZ, 0xa3)
    const name = HERD_SPECIES[h % HERD_SPECIES.length]
    const n = 2 + ((h >>> 4) % 3)
    const out = []
    for (let i = 0; i < n; i++) {
      const k = hash(this.seed, chunkX, chunkZ, 0xa4 + i)
      out.push({ name, x: chunkX * 16 + 2 + (k % 12), z: chunkZ * 16 + 2 + ((k >>> 8) % 12) })
    }
    return out
  }
}

module.exports = { Wild, WILD_FROM, WILD_FULL, SEA }
