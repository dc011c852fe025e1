'use strict'
// Village columns around the lake generated at a version whose sections count their fluids,
// then water set and taken away, with prismarine-chunk's counting ("stock") or bots/server/fluid_counts.js ("kept"): prints a
// hash of every column's dump, the fluid count of every section summed, and the CPU time.
//   node fluid_counts_check.js '"26.1"' '"kept"'
const path = require('path')
const crypto = require('crypto')
const [version, mode] = process.argv.slice(2).map(a => JSON.parse(a))
const server = path.resolve(__dirname, '../../../bots/server')
require(path.join(server, 'compat/flying_squid.js')).allowVersion(version)
const fluids = require(path.join(server, 'fluid_counts.js'))
if (mode === 'kept') fluids.install()
const req = require('module').createRequire(path.join(server, 'host.js'))
const registry = req('prismarine-registry')(version)
const generation = require(path.join(server, 'generator'))
const { getPlan } = generation
const lake = getPlan({ seed: 0, layout: {}, registry }).summary().places.find(p => p.name === 'lake')
const generate = generation({ registry, seed: 1, villageSeed: 0, layout: {}, version })
const { Vec3 } = req('vec3')
const water = registry.blocksByName.water.defaultState
const stone = registry.blocksByName.stone.defaultState
const hash = crypto.createHash('sha256')
let fluidCount = 0
const t0 = process.cpuUsage()
const cx = Math.floor(lake.x / 16)
const cz = Math.floor(lake.z / 16)
for (let x = cx - 2; x <= cx + 2; x++) {
  for (let z = cz - 2; z <= cz + 2; z++) {
    const column = generate(x, z)
    // then changed as players change it: every water block of one row made stone, and
    // stone, air and water of another row made water
    for (let y = 40; y < 80; y++) {
      for (let i = 0; i < 16; i++) {
        const a = new Vec3(i, y, 3)
        if (column.getBlockStateId(a) === water) column.setBlockStateId(a, stone)
        column.setBlockStateId(new Vec3(i, y, 9), water)
      }
    }
    hash.update(column.dump())
    for (const s of column.sections) fluidCount += s.fluidCount || 0
  }
}
const t = process.cpuUsage(t0)
process.stdout.write(JSON.stringify({ sha: hash.digest('hex').slice(0, 16), fluidCount, ms: Math.round((t.user + t.system) / 1000), stats: fluids.stats }) + '\n')
