'use strict'
// A chest opened within reach, then used from afar: the player opens a chest of 5 diamonds,
// is moved 12 blocks away (the admin API's teleport, as a walk would), and shift-clicks the
// chest's slot with the window still open on its screen.
const inv = require('../lib/inventory')

module.exports = {
  what: 'opens a chest in reach, is moved 12 blocks away, then shift-clicks the chest slot',
  vanilla: 'the window closes once the player is beyond 8 blocks (stillValid); the click moves nothing',
  versions: null,
  async run (t) {
    const owner = await t.join(t.name('away'))
    const { chest, inChest: before } = await inv.chestWith(t, owner, 'diamond', 5)
    const win = await inv.openAt(t, owner, chest)
    if (!win) throw new Error('could not open the chest again')
    await inv.teleport(t, owner, { x: chest.x + 0.5, y: chest.y, z: chest.z + 0.5 + 12 })
    const closed = t.next(owner, 'close_window', null, 3000).then(() => true, () => false)
    inv.click(t, owner, { windowId: win.windowId, slot: 0, mode: 1, claim: { changed: [[0, null, 0], [inv.CHEST_HOTBAR, 'diamond', 5]] } })
    await t.sync(owner)
    const inChest = (await inv.containerCounts(t, chest)).diamond || 0
    const taken = (await inv.inventoryCounts(t, owner.username)).diamond || 0
    const windowClosed = await closed
    return { refused: inChest === before && taken === 0 && windowClosed, detail: { inChestBefore: before, inChest, taken, windowClosed } }
  }
}
