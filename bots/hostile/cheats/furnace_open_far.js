'use strict'
// A furnace used from 12 blocks away: "use on block" on it, then a shift-click of coal into
// the window it would have opened.
const inv = require('../lib/inventory')

module.exports = {
  what: 'opens a furnace from 12 blocks away and shift-clicks 8 coal into it',
  vanilla: 'ignored: a block used from beyond reach opens nothing',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('furnace'))
    const at = await inv.spot(t, client)
    const furnace = { x: at.x - 2, y: at.y, z: at.z }
    await inv.setBlock(t, furnace, 'furnace')
    const before = await inv.containerCounts(t, furnace)
    await inv.give(t, client, 'coal', 8)
    await inv.teleport(t, client, { x: furnace.x + 0.5, y: furnace.y, z: furnace.z + 0.5 + 12 })
    const win = await inv.openAt(t, client, furnace, 2000)
    inv.click(t, client, { windowId: win ? win.windowId : 1, slot: 30, mode: 1, claim: { changed: [[30, null, 0], [1, 'coal', 8]] } })
    await t.sync(client)
    const after = await inv.containerCounts(t, furnace)
    const coal = (await inv.inventoryCounts(t, client.username)).coal || 0
    return {
      refused: !win && inv.sameCounts(before, after) && coal === 8,
      detail: { windowOpened: Boolean(win), furnaceBefore: before, furnaceAfter: after, coalHeld: coal }
    }
  }
}
