'use strict'
// A survival client writes set_creative_slot for 64 diamonds in its hotbar, then throws the
// stack (the drop key with the control key): the first finding, where a second
// client saw 64 dropped diamonds.
const inv = require('../lib/inventory')

module.exports = {
  what: 'a survival client sends set_creative_slot for 64 diamonds, then drops the stack',
  vanilla: 'ignored: creative-only packet in survival; the client is sent its real slot',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('creative'))
    const at = await inv.spot(t, client)
    client.write('set_creative_slot', { slot: inv.HOTBAR, item: inv.notch(t, 'diamond', 64) })
    await t.sync(client)
    const shown = inv.fromNotch(t, client.windows[0]?.slots[inv.HOTBAR])
    client.write('block_dig', { status: 3, location: { x: 0, y: 0, z: 0 }, face: 0, sequence: 1 })
    await t.sync(client)
    const held = (await inv.inventoryCounts(t, client.username)).diamond || 0
    const dropped = (await inv.groundAt(t, at)).diamond || 0
    const mode = (await t.admin('GET', `/players/${client.username}`)).gameMode
    return {
      refused: mode === 0 && held === 0 && dropped === 0 && shown === null,
      detail: { gameMode: mode, held, dropped, clientShownAfterRefusal: shown }
    }
  }
}
