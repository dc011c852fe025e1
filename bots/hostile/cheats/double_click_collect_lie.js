'use strict'
// Double-click collect (mode 6): 3 diamonds split over two slots, one picked up, then the
// double click gathers the rest onto the cursor; the client claims 64 on its cursor and the
// other slot untouched, then throws the cursor out of the window.
const inv = require('../lib/inventory')

module.exports = {
  what: 'double-click collects 3 diamonds split over two slots claiming 64 on the cursor and the other slot kept',
  vanilla: 'the cursor gathers what the slots hold; the client is sent the slots again',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('collect'))
    const at = await inv.spot(t, client)
    await inv.give(t, client, 'diamond', 3)
    // honest set-up: pick up 3, put 1 in slot 9 (right button), 2 in slot 10
    inv.click(t, client, { windowId: 0, slot: inv.HOTBAR, mode: 0, claim: { item: ['diamond', 3], changed: [[inv.HOTBAR, null, 0]], cursor: ['diamond', 3] } })
    inv.click(t, client, { windowId: 0, slot: 9, button: 1, mode: 0, claim: { changed: [[9, 'diamond', 1]], cursor: ['diamond', 2] } })
    inv.click(t, client, { windowId: 0, slot: 10, mode: 0, claim: { changed: [[10, 'diamond', 2]] } })
    await t.sync(client)
    inv.click(t, client, { windowId: 0, slot: 10, mode: 0, claim: { item: ['diamond', 2], changed: [[10, null, 0]], cursor: ['diamond', 2] } })
    inv.click(t, client, { windowId: 0, slot: 10, mode: 6, claim: { changed: [[9, 'diamond', 1]], cursor: ['diamond', 64] } })
    inv.click(t, client, { windowId: 0, slot: -999, mode: 0, claim: {} })
    await t.sync(client)
    const held = (await inv.inventoryCounts(t, client.username)).diamond || 0
    const dropped = (await inv.groundAt(t, at)).diamond || 0
    const agrees = await inv.clientAgrees(t, client)
    return { refused: held + dropped === 3 && agrees, detail: { held, dropped, clientAgrees: agrees } }
  }
}
