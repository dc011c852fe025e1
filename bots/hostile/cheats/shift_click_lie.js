'use strict'
// Shift-click (mode 1) of 3 diamonds from the hotbar to the main inventory, claiming that
// both the hotbar slot and the main slot hold 64 afterwards.
const inv = require('../lib/inventory')

module.exports = {
  what: 'shift-clicks 3 diamonds to the main inventory claiming 64 in the old and the new slot',
  vanilla: 'the stack moves as the server sees it; the client is sent the slots again',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('shift'))
    const at = await inv.spot(t, client)
    await inv.give(t, client, 'diamond', 3)
    inv.click(t, client, { windowId: 0, slot: inv.HOTBAR, mode: 1, claim: { item: ['diamond', 64], changed: [[inv.HOTBAR, 'diamond', 64], [9, 'diamond', 64]] } })
    await t.sync(client)
    const held = (await inv.inventoryCounts(t, client.username)).diamond || 0
    const dropped = (await inv.groundAt(t, at)).diamond || 0
    const agrees = await inv.clientAgrees(t, client)
    return { refused: held === 3 && dropped === 0 && agrees, detail: { held, dropped, clientAgrees: agrees } }
  }
}
