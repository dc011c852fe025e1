'use strict'
// withdraw: take N of an item out of a chest (given position, or the nearest one that holds it).
const { CHEST_ARGS, CHEST_BLOCKS, SEARCH_RADIUS, nearest, transfer, withChest } = require('../lib/container')
const { SkillAborted, SkillError, resolveNames, vec } = require('../lib/util')

// without a position: how many of the nearest chests are looked into for the item (the town
// hall has four side by side; the nearest one is rarely the one a deposit went into: the body
// stands elsewhere after walking to it, and another body may have filled another)
const MAX_CHESTS = 8

// A chest another player has open may be read in the middle of their transfer: the stack they
// clicked sits on their cursor and the chest shows that slot empty until they put the rest back
// (a vanilla server shows it so too; mineflayer's own withdraw and deposit lift whole stacks).
// A read that finds too few is taken again at each change of the chest's slots, until the lid
// shows this body alone at the chest (no one else can hold its items) or for SETTLE_MS at most.
const SETTLE_MS = 1000

module.exports = {
  args: CHEST_ARGS,
  async run (ctx, { item, count, x, y, z }) {
    const names = resolveNames(ctx.bot.registry.itemsByName, item)
    if (names.length === 0) throw new SkillError(`unknown item "${item}"`)
    const lids = watchLids(ctx.bot)
    try {
      const use = (chest, block) => take(ctx, chest, block, names, item, count, lids)
      if (x != null && y != null && z != null) return await withChest(ctx, { x, y, z }, use)
      const chests = nearest(ctx.bot, CHEST_BLOCKS, MAX_CHESTS)
      if (!chests.length) throw new SkillError(`no chest within ${SEARCH_RADIUS} blocks`)
      const lacking = []
      for (const block of chests) {
        try {
          return await withChest(ctx, block.position, use)
        } catch (err) {
          if (!(err instanceof SkillError && err.detail.lacking)) throw err
          lacking.push(err)
        }
      }
      if (lacking.length === 1) throw lacking[0]
      const looked = lacking.map(e => `${e.detail.lacking} at ${JSON.stringify(e.detail.chest)}`).join('; ')
      throw new SkillError(`no chest within ${SEARCH_RADIUS} blocks has ${count} ${item} (looked into ${lacking.length}: ${looked})`,
        { chests: lacking.map(e => e.detail.chest) }, 'target_not_found')
    } finally {
      lids.stop()
    }
  }
}

/** What the open chest holds: item name -> count. */
function holdings (chest) {
  const stored = {}
  for (const it of chest.containerItems()) stored[it.name] = (stored[it.name] || 0) + it.count
  return stored
}

/** The first of ``names`` the chest holds (``stored``), and whether it holds ``count`` of it. */
function pick (stored, names, count) {
  const name = names.find(n => (stored[n] || 0) > 0)
  return { name, enough: Boolean(name) && stored[name] >= count }
}

/** Withdraw ``count`` of the first of ``names`` the open chest holds; a SkillError with
 * ``detail.lacking`` (what it holds) when it holds none or too few once it settled. */
async function take (ctx, chest, block, names, item, count, lids) {
  const deadline = Date.now() + SETTLE_MS
  let stored = holdings(chest)
  while (!pick(stored, names, count).enough && !lids.alone(chest, block) && Date.now() < deadline) {
    await lids.change(chest, deadline - Date.now(), ctx.signal)
    stored = holdings(chest)
  }
  const { name } = pick(stored, names, count)
  const contents = Object.entries(stored).map(([n, c]) => `${c} ${n}`).join(', ') || 'nothing'
  const detail = { chest: vec(block.position), lacking: `it holds ${contents}` }
  if (!name) throw new SkillError(`the chest has no ${item} (it holds ${contents})`, detail, 'target_not_found')
  if (stored[name] < count) throw new SkillError(`the chest has only ${stored[name]} ${name}, wanted ${count}`, detail, 'target_not_found')
  return transfer(ctx, chest, block, 'withdraw', name, count)
}

/**
 * How many players have each chest open, as its lid shows (the block action a vanilla server
 * sends everyone near it, mineflayer's chestLidMove), in the order it came beside the windows
 * this body opened: a lid event after a window opened counts this body in.
 *   alone(window, block)        the lid moved since ``window`` opened and shows one player
 *   change(window, ms, signal)  resolves at the next lid event or change of the window's
 *                               container slots, or after ``ms``
 *   stop()                      removes the listeners
 */
function watchLids (bot) {
  let order = 0
  const lids = new Map() // "(x, y, z)" -> {players, order}
  const opened = new WeakMap() // window -> order
  const onLid = (block, players, other) => {
    order++
    for (const b of [block, other]) if (b) lids.set(String(b.position), { players, order })
  }
  const onOpen = (window) => { opened.set(window, ++order) }
  bot.on('chestLidMove', onLid)
  bot.on('windowOpen', onOpen)
  return {
    alone (window, block) {
      const lid = lids.get(String(block.position))
      return Boolean(lid) && opened.has(window) && lid.order > opened.get(window) && lid.players === 1
    },
    change (window, ms, signal) {
      return new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer)
          bot.removeListener('chestLidMove', onChange)
          window.removeListener('updateSlot', onSlot)
          if (signal) signal.removeEventListener('abort', onAbort)
        }
        const onChange = () => { done(); resolve() }
        const onSlot = (slot) => { if (slot < window.inventoryStart) onChange() }
        const onAbort = () => { done(); reject(new SkillAborted(String(signal.reason || 'aborted'))) }
        const timer = setTimeout(onChange, Math.max(0, ms))
        bot.on('chestLidMove', onChange)
        window.on('updateSlot', onSlot)
        if (signal) {
          if (signal.aborted) return onAbort()
          signal.addEventListener('abort', onAbort, { once: true })
        }
      })
    },
    stop () {
      bot.removeListener('chestLidMove', onLid)
      bot.removeListener('windowOpen', onOpen)
    }
  }
}
