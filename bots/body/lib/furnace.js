'use strict'
// Waiting at an open furnace for what it smelts.
//
// What was smelted is counted by what reached the player's inventory rows of the window, not
// by the output slot as last seen: an item that lands in the output between the look and the
// click is taken with the stack (the click takes the whole stack the server holds), so a count
// of what was seen fell short and the body waited for items it already held. The furnace may
// also be shared: another player opening it takes what is in the output, or adds items of its
// own, as vanilla lets it. Once the furnace shows for a few polls in a row that nothing more
// will come (input and output empty, or input left with no fuel burning or in the fuel slot
// and none left to add), the wait ends with a reason instead of standing still until the
// runner's stuck timer.
const { REJECTED_CLICK, SkillError, sleep } = require('./util')

const POLL_MS = 500
// polls in a row the furnace must show it has nothing more (its slot and property packets
// of one server tick may arrive between two polls)
const IDLE_POLLS = 4

/** Items of ``type`` the player holds while ``window`` is open (its inventory rows and the cursor). */
function heldIn (window, type) {
  let n = 0
  for (let i = window.inventoryStart; i < window.inventoryEnd; i++) {
    const it = window.slots[i]
    if (it && it.type === type) n += it.count
  }
  const cursor = window.selectedItem
  if (cursor && cursor.type === type) n += cursor.count
  return n
}

/** Whether ``furnace`` (a mineflayer furnace window) cooks nothing and has no fuel to start. */
function outOfFuel (furnace) {
  return !!furnace.inputItem() && !furnace.fuelItem() && !(Number(furnace.fuel) > 0)
}

/**
 * Take ``count`` smelted items of ``input`` out of the open ``furnace`` as they come, every
 * POLL_MS; more fuel (``fuelId``) is added from the inventory when the furnace runs out with
 * input left. Returns the number taken; SkillError when the furnace has nothing more.
 */
async function takeSmelted (ctx, furnace, { input, count, fuelId }) {
  let type = null // the output's item type, from the first output seen
  let base = 0 // how many of it the player held before the first was taken
  let taken = 0
  let idle = 0
  while (taken < count) {
    await sleep(POLL_MS, ctx.signal)
    const out = furnace.outputItem()
    if (out) {
      if (type === null) { type = out.type; base = heldIn(furnace, type) }
      try {
        await furnace.takeOutput()
      } catch (err) {
        // before 1.17 a server refuses a click on a slot that changed since the client last
        // saw it (the output grew by an item cooked meanwhile) and resends the window: the
        // next poll clicks again on what it shows
        if (!REJECTED_CLICK.test(String(err && err.message))) throw err
      }
    }
    if (type !== null) taken = Math.max(taken, heldIn(furnace, type) - base)
    // the furnace's own cook progress counts: on a slow server an item takes longer than the
    // runner's stuck timer, and a furnace that cooks is not stuck
    const cooking = Math.max(0, Math.min(1, Number(furnace.progress) || 0))
    ctx.progress(0.1 + 0.9 * Math.min(1, (taken + cooking) / count), `smelted ${taken} of ${count} ${input}`)
    if (taken >= count) break
    const empty = !furnace.inputItem() && !furnace.outputItem()
    if (!empty && !outOfFuel(furnace)) { idle = 0; continue }
    if (++idle < IDLE_POLLS) continue
    if (empty) {
      throw new SkillError(`the furnace holds no more ${input}: smelted ${taken} of ${count} (another player took from it)`,
        { smelted: taken }, 'taken_by_other')
    }
    if (fuelId != null && heldIn(furnace, fuelId) > 0) {
      await furnace.putFuel(fuelId, null, 1)
      idle = 0
      continue
    }
    throw new SkillError(`missing fuel: the furnace ran out with ${input} left (smelted ${taken} of ${count})`, { smelted: taken })
  }
  return taken
}

module.exports = { takeSmelted, heldIn, POLL_MS, IDLE_POLLS }
