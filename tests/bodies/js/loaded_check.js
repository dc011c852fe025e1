'use strict'
// mineflayer's physics tick skips a body whose chunk is not loaded (bot.blockAt(position) ==
// null); body.js answers that question with lib/light_blocks.js's lightBlockAt. Over four
// generated columns, at heights below, inside and above every version's world and at x, z
// inside and outside them: whether each says "no block" where prismarine-world's getBlock
// (what mineflayer's blockAt reads) says it.
const path = require('path')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const [version] = process.argv.slice(2).map(a => JSON.parse(a))
const { Vec3 } = req('vec3')
const registry = req('prismarine-registry')(version)
const World = req('prismarine-world')(registry)
const { lightBlockAt } = require(path.resolve(__dirname, '../../../bots/body/lib/light_blocks.js'))
const generate = require(path.resolve(__dirname, '../../../bots/server/generator'))({ seed: 0, villageSeed: 0, layout: {}, registry })
const world = new World(null).sync
for (let cx = -1; cx <= 0; cx++) for (let cz = -1; cz <= 0; cz++) world.setColumn(cx, cz, generate(cx, cz))
const bot = { world, registry }
let compared = 0
let loaded = 0
const differ = []
for (const y of [-200, -65, -64, -1, 0, 64, 70.5, 255, 319, 320, 400]) {
  for (let x = -40; x <= 40; x += 3.7) {
    for (let z = -40; z <= 40; z += 3.3) {
      const p = new Vec3(x, y, z)
      const a = world.getBlock(p) == null
      const b = lightBlockAt(bot, p) == null
      compared++
      if (!a) loaded++
      if (a !== b && differ.length < 5) differ.push([x, y, z, a, b])
    }
  }
}
process.stdout.write(JSON.stringify({ compared, loaded, differ }))
