'use strict'
// A block placed 12 blocks away: the client holds one dirt and sends "use on block" on the
// top of a ground block far from it.
const inv = require('../lib/inventory')

module.exports = {
  what: 'places a dirt block on the ground 12 blocks away (use-on-block on its top face)',
  vanilla: 'ignored: a block used from beyond reach; the client is sent the blocks as they are',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('placer'))
    const at = await inv.spot(t, client)
    await inv.give(t, client, 'dirt', 1)
    const ground = { x: at.x, y: at.y - 1, z: at.z + 12 }
    const target = { x: ground.x, y: at.y, z: ground.z }
    await inv.setBlock(t, ground, 'stone')
    await inv.setBlock(t, target, 'air')
    const before = (await t.admin('GET', `/blocks/${target.x}/${target.y}/${target.z}`)).name
    inv.useOn(t, client, ground, 1)
    await t.sync(client)
    const after = (await t.admin('GET', `/blocks/${target.x}/${target.y}/${target.z}`)).name
    const dirt = (await inv.inventoryCounts(t, client.username)).dirt || 0
    return { refused: before === 'air' && after === 'air' && dirt === 1, detail: { before, after, dirtHeld: dirt } }
  }
}
