'use strict'
// bots/body/lib/light_blocks.js remembers the column of a bot's last look-up: after the
// column is unloaded, loaded anew or another is loaded, a look-up reads the world as it is.
// Prints the block name read at each step.
const path = require('path')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const [version] = process.argv.slice(2).map(a => JSON.parse(a))
const registry = req('prismarine-registry')(version)
const World = req('prismarine-world')(registry)
const Chunk = req('prismarine-chunk')(registry)
const { Vec3 } = req('vec3')
const { lightBlockAt } = require(path.resolve(__dirname, '../../../bots/body/lib/light_blocks.js'))

const tall = registry.supportFeature('tallWorld')
function column (name) {
  const c = new Chunk({ minY: tall ? -64 : 0, worldHeight: tall ? 384 : 256 })
  c.setBlockStateId(new Vec3(1, 10, 1), registry.blocksByName[name].defaultState)
  return c
}
const world = new World(null).sync
const bot = { world, registry }
const at = new Vec3(17, 10, 1) // in column 1, 0
const read = () => { const b = lightBlockAt(bot, at); return b ? b.name : null }
const out = {}
world.setColumn(1, 0, column('stone'))
out.loaded = read()
out.again = read()
world.unloadColumn(1, 0)
out.unloaded = read()
world.setColumn(1, 0, column('dirt'))
out.reloaded = read()
world.setColumn(1, 0, column('oak_log')) // replaced without an unload
out.replaced = read()
process.stdout.write(JSON.stringify(out))
