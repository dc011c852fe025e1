'use strict'
// The third finding: a client opens a community-style chest 21.5 blocks away with
// one "use on block" packet (no walk), then shift-clicks its first slot.
const inv = require('../lib/inventory')

module.exports = {
  what: 'opens a chest holding 5 diamonds from 21.5 blocks away (use-on-block, no walk), then shift-clicks its slot',
  vanilla: 'ignored: a block used from beyond reach (1.16: 8 blocks from the feet) opens nothing',
  versions: null,
  async run (t) {
    const owner = await t.join(t.name('owner'))
    const { chest, inChest: before } = await inv.chestWith(t, owner, 'diamond', 5)
    await t.close(owner)
    const thief = await t.join(t.name('far'))
    await inv.teleport(t, thief, { x: chest.x + 0.5, y: chest.y, z: chest.z + 0.5 + 21.5 })
    const win = await inv.openAt(t, thief, chest, 2000)
    inv.click(t, thief, { windowId: win ? win.windowId : 1, slot: 0, mode: 1, claim: { changed: [[0, null, 0], [inv.CHEST_HOTBAR, 'diamond', 5]] } })
    await t.sync(thief)
    const inChest = (await inv.containerCounts(t, chest)).diamond || 0
    const taken = (await inv.inventoryCounts(t, thief.username)).diamond || 0
    return { refused: !win && inChest === before && taken === 0, detail: { windowOpened: Boolean(win), inChestBefore: before, inChest, taken } }
  }
}
