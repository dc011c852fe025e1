'use strict'
// The generated village (the server's own generator, seed 0) in a prismarine-world, and a
// bot-shaped object over it that the pathfinder's Movements accept: what the path checks
// run on without a server. ``req`` requires from bots/ (where the node modules are).
const path = require('path')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))

/** The village's chunk columns ``cx`` in [x0, x1] and ``cz`` in [z0, z1] at ``version``, and its ground. */
function villageWorld (version, [x0, x1], [z0, z1]) {
  const registry = req('prismarine-registry')(version)
  const World = req('prismarine-world')(registry)
  const generate = require(path.resolve(__dirname, '../../../bots/server/generator'))({ seed: 0, villageSeed: 0, layout: {}, registry })
  const world = new World(null).sync
  for (let cx = x0; cx <= x1; cx++) for (let cz = z0; cz <= z1; cz++) world.setColumn(cx, cz, generate(cx, cz))
  const bot = {
    world,
    registry,
    version,
    entities: {},
    game: { minY: registry.version['>=']('1.18') ? -64 : 0 },
    inventory: { items: () => [] },
    blockAt: (p) => world.getBlock(p)
  }
  const { Vec3 } = req('vec3')
  /** The y a body stands at on the ground of column (x, z): above its highest full block. */
  const groundAt = (x, z) => {
    for (let y = 120; y > 40; y--) {
      const b = world.getBlock(new Vec3(x, y, z))
      if (b && b.boundingBox === 'block') return y + 1
    }
    return null
  }
  return { registry, world, bot, groundAt }
}

module.exports = { req, villageWorld }
