'use strict'
// Number keys (mode 2): swap 3 diamonds between a main slot and the hotbar claiming 64 in
// both, then number keys outside the hotbar (button 9, 40 off hand at 1.16+, 50) claiming
// diamonds appear there.
const inv = require('../lib/inventory')

module.exports = {
  what: 'number-key swaps 3 diamonds claiming 64 in both slots, then keys 9, 40 and 50 claiming more',
  vanilla: 'the swap moves what the slots hold; keys beyond the hotbar change nothing but the off hand (40)',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('numkey'))
    const at = await inv.spot(t, client)
    await inv.give(t, client, 'diamond', 3)
    inv.click(t, client, { windowId: 0, slot: 9, button: 0, mode: 2, claim: { changed: [[9, 'diamond', 64], [inv.HOTBAR, 'diamond', 64]] } })
    for (const button of [9, 40, 50]) {
      inv.click(t, client, { windowId: 0, slot: 9, button, mode: 2, claim: { item: ['diamond', 64], changed: [[9, 'diamond', 64], [45, 'diamond', 64]] } })
    }
    await t.sync(client)
    const held = (await inv.inventoryCounts(t, client.username)).diamond || 0
    const dropped = (await inv.groundAt(t, at)).diamond || 0
    const agrees = await inv.clientAgrees(t, client)
    return { refused: held + dropped === 3 && agrees, detail: { held, dropped, clientAgrees: agrees } }
  }
}
