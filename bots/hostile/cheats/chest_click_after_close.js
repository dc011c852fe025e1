'use strict'
// Clicks in a chest window the player has closed: the owner fills a chest with 5 diamonds,
// closes it, then shift-clicks, picks up and throws its first slot with the old window id.
const inv = require('../lib/inventory')

module.exports = {
  what: 'clicks (shift-click, pick up, throw) in a chest window after closing it',
  vanilla: 'ignored: a click in a window that is no longer open',
  versions: null,
  async run (t) {
    const owner = await t.join(t.name('closed'))
    const { chest, at, inChest: before, windowId: id } = await inv.chestWith(t, owner, 'diamond', 5)
    const groundBefore = (await inv.groundAt(t, at)).diamond || 0
    inv.click(t, owner, { windowId: id, slot: 0, mode: 1, claim: { changed: [[0, null, 0], [inv.CHEST_HOTBAR, 'diamond', 5]] } })
    inv.click(t, owner, { windowId: id, slot: 0, mode: 0, claim: { item: ['diamond', 5], changed: [[0, null, 0]], cursor: ['diamond', 5] } })
    inv.click(t, owner, { windowId: id, slot: 0, button: 1, mode: 4, claim: { changed: [[0, null, 0]] } })
    inv.click(t, owner, { windowId: 0, slot: -999, mode: 0, claim: {} })
    await t.sync(owner)
    const inChest = (await inv.containerCounts(t, chest)).diamond || 0
    const taken = (await inv.inventoryCounts(t, owner.username)).diamond || 0
    const dropped = ((await inv.groundAt(t, at)).diamond || 0) - groundBefore
    return { refused: inChest === before && taken === 0 && dropped === 0, detail: { inChestBefore: before, inChest, taken, dropped } }
  }
}
