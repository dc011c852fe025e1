'use strict'
// A second player moves items of a chest only the first has open: the owner opens a chest of
// 5 diamonds and keeps it open; a thief standing beside it, who never opened it, sends
// clicks with the owner's window id (shift-click, pick up, throw).
const inv = require('../lib/inventory')

module.exports = {
  what: "a second player beside a chest sends clicks with the window id of the first player's open chest",
  vanilla: 'ignored: a click in a window the player does not have open',
  versions: null,
  async run (t) {
    const owner = await t.join(t.name('owner'))
    const { chest, at, inChest: before } = await inv.chestWith(t, owner, 'diamond', 5)
    const win = await inv.openAt(t, owner, chest)
    if (!win) throw new Error('the owner could not open the chest again')
    const thief = await t.join(t.name('other'))
    await inv.teleport(t, thief, { x: chest.x + 0.5, y: chest.y, z: chest.z + 1.5 })
    const groundBefore = (await inv.groundAt(t, at)).diamond || 0
    const id = win.windowId
    inv.click(t, thief, { windowId: id, slot: 0, mode: 1, claim: { changed: [[0, null, 0], [inv.CHEST_HOTBAR, 'diamond', 5]] } })
    inv.click(t, thief, { windowId: id, slot: 0, mode: 0, claim: { item: ['diamond', 5], changed: [[0, null, 0]], cursor: ['diamond', 5] } })
    inv.click(t, thief, { windowId: id, slot: 0, button: 1, mode: 4, claim: { changed: [[0, null, 0]] } })
    inv.closeWindow(thief, id)
    await t.sync(thief)
    const inChest = (await inv.containerCounts(t, chest)).diamond || 0
    const taken = (await inv.inventoryCounts(t, thief.username)).diamond || 0
    const dropped = ((await inv.groundAt(t, at)).diamond || 0) - groundBefore
    return { refused: inChest === before && taken === 0 && dropped === 0, detail: { inChestBefore: before, inChest, taken, dropped } }
  }
}
