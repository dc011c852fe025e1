'use strict'
// The clone click (middle button, mode 3) copies a stack to the cursor in creative mode only;
// a survival client sends it on its one diamond claiming a full stack on its cursor, then
// throws the cursor out of the window.
const inv = require('../lib/inventory')

module.exports = {
  what: 'a survival client clone-clicks (mode 3) its one diamond, claims 64 on the cursor, throws the cursor',
  vanilla: 'ignored: creative-only click in survival; the client is sent its window again',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('clone'))
    const at = await inv.spot(t, client)
    await inv.give(t, client, 'diamond', 1)
    inv.click(t, client, { windowId: 0, slot: inv.HOTBAR, button: 2, mode: 3, claim: { item: ['diamond', 1], cursor: ['diamond', 64] } })
    inv.click(t, client, { windowId: 0, slot: -999, button: 0, mode: 0, claim: {} })
    await t.sync(client)
    const held = (await inv.inventoryCounts(t, client.username)).diamond || 0
    const dropped = (await inv.groundAt(t, at)).diamond || 0
    const agrees = await inv.clientAgrees(t, client)
    return { refused: held === 1 && dropped === 0 && agrees, detail: { held, dropped, clientAgrees: agrees } }
  }
}
