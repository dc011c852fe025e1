'use strict'
// mineflayer's physics tick skips a body whose chunk is not loaded (bot.blockAt(position) ==
// null); body.js answers that question with lib/light_blocks.js's lightBlockAt. Over four
// generated columns, at heights below, inside and above every version's world and at x, z
// inside and outside them: whether each says "no block" where prismarine-world's getBlock
// (what mineflayer's blockAt reads) says it.
const path = require('path')
const { req, villageWorld } = require('./village_world')
const [version] = process.argv.slice(2).map(a => JSON.parse(a))
const { Vec3 } = req('vec3')
const { lightBlockAt } = require(path.resolve(__dirname, '../../../bots/body/lib/light_blocks.js'))
const { world, bot } = villageWorld(version, [-1, 0], [-1, 0])
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
