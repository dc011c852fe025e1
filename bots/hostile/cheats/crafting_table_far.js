'use strict'
// A crafting table used from 12 blocks away: "use on block", then the 3x3 grid filled with
// 4 planks and the result taken, claiming a crafting table.
const inv = require('../lib/inventory')

module.exports = {
  what: 'opens a crafting table from 12 blocks away, fills its grid with 4 planks and takes the result',
  vanilla: 'ignored: a block used from beyond reach opens nothing; clicks in an unopened window do nothing',
  versions: null,
  async run (t) {
    const client = await t.join(t.name('table'))
    const at = await inv.spot(t, client)
    const table = { x: at.x - 2, y: at.y, z: at.z }
    await inv.setBlock(t, table, 'crafting_table')
    await inv.give(t, client, 'oak_planks', 4)
    await inv.teleport(t, client, { x: table.x + 0.5, y: table.y, z: table.z + 0.5 + 12 })
    const win = await inv.openAt(t, client, table, 2000)
    const id = win ? win.windowId : 1
    const hotbar = 37 // the 3x3 window's hotbar slot 0 (10 grid + 27 main)
    inv.click(t, client, { windowId: id, slot: hotbar, mode: 0, claim: { item: ['oak_planks', 4], changed: [[hotbar, null, 0]], cursor: ['oak_planks', 4] } })
    for (const slot of [1, 2, 4, 5]) inv.click(t, client, { windowId: id, slot, button: 1, mode: 0, claim: { changed: [[slot, 'oak_planks', 1]] } })
    inv.click(t, client, { windowId: id, slot: 0, mode: 1, claim: { changed: [[0, null, 0], [hotbar, 'crafting_table', 1]] } })
    inv.closeWindow(client, id)
    await t.sync(client)
    const counts = await inv.inventoryCounts(t, client.username)
    const ground = await inv.droppedNear(t, { x: table.x, y: table.y, z: table.z + 12 }, 4)
    const tables = (counts.crafting_table || 0) + (ground.crafting_table || 0)
    const planks = (counts.oak_planks || 0) + (ground.oak_planks || 0)
    return { refused: !win && tables === 0 && planks === 4, detail: { windowOpened: Boolean(win), tables, planks } }
  }
}
