'use strict'
// Taking a crafting result the grid does not make: with an empty 2x2 grid, then with one
// cobblestone in it (a furnace needs eight), the client takes the result slot every way
// there is (click, shift-click, number key, drop key) claiming a furnace.
const inv = require('../lib/inventory')

function takeEveryWay (t, client) {
  const furnace = ['furnace', 1]
  inv.click(t, client, { windowId: 0, slot: 0, mode: 0, claim: { item: furnace, changed: [[0, null, 0]], cursor: furnace } })
  inv.click(t, client, { windowId: 0, slot: -999, mode: 0, claim: {} })
  inv.click(t, client, { windowId: 0, slot: 0, mode: 1, claim: { item: furnace, changed: [[0, null, 0], [inv.HOTBAR + 1, ...furnace]] } })
  inv.click(t, client, { windowId: 0, slot: 0, button: 2, mode: 2, claim: { changed: [[0, null, 0], [inv.HOTBAR + 2, ...furnace]] } })
  inv.click(t, client, { windowId: 0, slot: 0, button: 1, mode: 4, claim: { changed: [[0, null, 0]] } })
}

module.exports = {
  what: 'takes a furnace from the 2x2 result slot with an empty grid, then with one cobblestone (click, shift, key, drop)',
  vanilla: 'the result slot holds only what the grid makes: nothing is taken',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('craft'))
    const at = await inv.spot(t, client)
    takeEveryWay(t, client)
    await t.sync(client)
    await inv.give(t, client, 'cobblestone', 1)
    // one cobblestone into grid slot 1 (honest), then the result again
    inv.click(t, client, { windowId: 0, slot: inv.HOTBAR, mode: 0, claim: { item: ['cobblestone', 1], changed: [[inv.HOTBAR, null, 0]], cursor: ['cobblestone', 1] } })
    inv.click(t, client, { windowId: 0, slot: 1, mode: 0, claim: { changed: [[1, 'cobblestone', 1]] } })
    takeEveryWay(t, client)
    inv.closeWindow(client, 0) // the grid goes back to the inventory
    await t.sync(client)
    const counts = await inv.inventoryCounts(t, client.username)
    const ground = await inv.groundAt(t, at)
    const furnaces = (counts.furnace || 0) + (ground.furnace || 0)
    const cobblestone = (counts.cobblestone || 0) + (ground.cobblestone || 0)
    const agrees = await inv.clientAgrees(t, client)
    return { refused: furnaces === 0 && cobblestone === 1 && agrees, detail: { furnaces, cobblestone, clientAgrees: agrees } }
  }
}
