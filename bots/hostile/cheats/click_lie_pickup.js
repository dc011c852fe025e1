'use strict'
// A client that lies about what its clicks did: it picks up its 3 diamonds claiming the slot
// still holds 64 and the cursor 64 more, then puts the cursor down claiming 64 there too
// (1.16.5: the click names the slot's item as 64 diamonds).
const inv = require('../lib/inventory')

module.exports = {
  what: 'picks up 3 diamonds claiming the slot still holds 64 and the cursor 64, then places the cursor claiming 64',
  vanilla: 'the click is done as the server sees it; a client whose claim differs is sent the slots again',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('liar'))
    const at = await inv.spot(t, client)
    await inv.give(t, client, 'diamond', 3)
    inv.click(t, client, { windowId: 0, slot: inv.HOTBAR, mode: 0, claim: { item: ['diamond', 64], changed: [[inv.HOTBAR, 'diamond', 64]], cursor: ['diamond', 64] } })
    inv.click(t, client, { windowId: 0, slot: 9, mode: 0, claim: { item: ['diamond', 64], changed: [[9, 'diamond', 64]], cursor: ['diamond', 64] } })
    inv.click(t, client, { windowId: 0, slot: -999, mode: 0, claim: {} })
    await t.sync(client)
    const counts = await inv.inventoryCounts(t, client.username)
    const dropped = (await inv.groundAt(t, at)).diamond || 0
    const agrees = await inv.clientAgrees(t, client)
    const held = counts.diamond || 0
    return { refused: held + dropped === 3 && agrees, detail: { held, dropped, clientAgrees: agrees } }
  }
}
