'use strict'
// Generates the chunks within `radius` blocks of each probe point with the
// world generator and prints, per probe, what an explorer there could find
// (JSON): log species, bare stone, coal and iron ore touching air, water,
// sand, herds of animals; a digest of the chunks; generation time per chunk.
// usage: node wild_check.js '{"seed": 31, "layout": {}, "probes": [[x, z], ...], "radius": 64}'
const path = require('path')
const crypto = require('crypto')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const registry = require(path.join(NM, 'prismarine-registry'))('1.16.5')
const generation = require(path.resolve(__dirname, '../../../bots/server/generator'))
const { seed, layout, probes, radius = 64 } = JSON.parse(process.argv[2])
const gen = generation({ seed, villageSeed: seed, layout: layout || {}, registry })
const plan = generation.getPlan({ seed, layout: layout || {}, registry })
const names = registry.blocksByStateId

const out = []
const times = []
for (const [px, pz] of probes) {
  const hash = crypto.createHash('sha256')
  const chunks = new Map()
  const c0x = Math.floor((px - radius) / 16)
  const c1x = Math.floor((px + radius) / 16)
  const c0z = Math.floor((pz - radius) / 16)
  const c1z = Math.floor((pz + radius) / 16)
  for (let cx = c0x; cx <= c1x; cx++) {
    for (let cz = c0z; cz <= c1z; cz++) {
      const t = process.hrtime.bigint()
      const chunk = gen(cx, cz)
      times.push(Number(process.hrtime.bigint() - t) / 1e6)
      chunks.set(cx + ',' + cz, chunk)
      hash.update(chunk.dump())
    }
  }
  const at = (x, y, z) => {
    if (y < 0 || y > 255) return 'air'
    const chunk = chunks.get((x >> 4) + ',' + (z >> 4))
    if (!chunk) return 'stone'
    return names[chunk.getBlockStateId({ x: x & 15, y, z: z & 15 })].name
  }
  const counts = {}
  const exposed = {}
  const logs = {}
  const p = { x: 0, y: 0, z: 0 }
  for (let x = px - radius; x <= px + radius; x++) {
    for (let z = pz - radius; z <= pz + radius; z++) {
      if ((x - px) ** 2 + (z - pz) ** 2 > radius * radius) continue
      const chunk = chunks.get((x >> 4) + ',' + (z >> 4))
      p.x = x & 15; p.z = z & 15
      for (let y = 1; y < 140; y++) {
        p.y = y
        const name = names[chunk.getBlockStateId(p)].name
        if (name === 'air') continue
        counts[name] = (counts[name] || 0) + 1
        if (name.endsWith('_log')) logs[name] = (logs[name] || 0) + 1
        if (name === 'stone' || name.endsWith('_ore')) {
          const open = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, -1]]
            .some(([a, b, c]) => at(x + a, y + b, z + c) === 'air')
          if (open) exposed[name] = (exposed[name] || 0) + 1
        }
      }
    }
  }
  let herds = 0
  let animals = 0
  for (let cx = c0x; cx <= c1x; cx++) {
    for (let cz = c0z; cz <= c1z; cz++) {
      const h = plan.wild.herdAt(cx, cz)
      if (h.length) { herds++; animals += h.length }
    }
  }
  out.push({
    probe: [px, pz],
    digest: hash.digest('hex'),
    logs,
    exposed,
    water: counts.water || 0,
    sand: counts.sand || 0,
    stone: counts.stone || 0,
    coal: counts.coal_ore || 0,
    iron: counts.iron_ore || 0,
    herds,
    animals,
    ground: plan.column(px, pz).height
  })
}
times.sort((a, b) => a - b)
const mean = times.reduce((a, b) => a + b, 0) / times.length
process.stdout.write(JSON.stringify({
  probes: out,
  chunks: times.length,
  msPerChunk: mean,
  p95Ms: times[Math.floor(times.length * 0.95)],
  maxMs: times[times.length - 1]
}) + '\n')
