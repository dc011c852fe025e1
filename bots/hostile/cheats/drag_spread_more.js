'use strict'
// A drag (mode 5) that spreads more than the cursor holds: 2 diamonds on the cursor, dragged
// with the right button over 9 slots, claiming 64 in each, then the left button over 9
// more, then the window closed (the cursor goes back to the inventory).
const inv = require('../lib/inventory')

function drag (t, client, button, slots) {
  const claim = { changed: slots.map(s => [s, 'diamond', 64]), cursor: ['diamond', 64] }
  inv.click(t, client, { windowId: 0, slot: -999, mode: 5, button: button * 4 + 0 })
  for (const s of slots) inv.click(t, client, { windowId: 0, slot: s, mode: 5, button: button * 4 + 1, claim })
  inv.click(t, client, { windowId: 0, slot: -999, mode: 5, button: button * 4 + 2, claim })
}

module.exports = {
  what: 'drags 2 diamonds over 9 slots (right, then left button) claiming 64 in each slot',
  vanilla: 'a drag places at most what the cursor holds; the client is sent the slots again',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('drag'))
    const at = await inv.spot(t, client)
    await inv.give(t, client, 'diamond', 2)
    inv.click(t, client, { windowId: 0, slot: inv.HOTBAR, mode: 0, claim: { item: ['diamond', 2], changed: [[inv.HOTBAR, null, 0]], cursor: ['diamond', 2] } })
    drag(t, client, 1, [9, 10, 11, 12, 13, 14, 15, 16, 17])
    inv.click(t, client, { windowId: 0, slot: 9, mode: 0, claim: { item: ['diamond', 64], cursor: ['diamond', 64], changed: [[9, null, 0]] } })
    drag(t, client, 0, [18, 19, 20, 21, 22, 23, 24, 25, 26])
    inv.closeWindow(client, 0)
    await t.sync(client)
    const held = (await inv.inventoryCounts(t, client.username)).diamond || 0
    const dropped = (await inv.groundAt(t, at)).diamond || 0
    const agrees = await inv.clientAgrees(t, client)
    return { refused: held + dropped === 2 && agrees, detail: { held, dropped, clientAgrees: agrees } }
  }
}
