'use strict'
// withdraw: take N of an item out of a chest (given position, or the nearest one that holds it).
const { CHEST_ARGS, CHEST_BLOCKS, SEARCH_RADIUS, nearest, transfer, withChest } = require('../lib/container')
const { SkillError, resolveNames, vec } = require('../lib/util')

// without a position: how many of the nearest chests are looked into for the item (the town
// hall has four side by side; the nearest one is rarely the one a deposit went into: the body
// stands elsewhere after walking to it, and another body may have filled another)
const MAX_CHESTS = 8

module.exports = {
  args: CHEST_ARGS,
  async run (ctx, { item, count, x, y, z }) {
    const names = resolveNames(ctx.bot.registry.itemsByName, item)
    if (names.length === 0) throw new SkillError(`unknown item "${item}"`)
    if (x != null && y != null && z != null) return withChest(ctx, { x, y, z }, (chest, block) => take(ctx, chest, block, names, item, count))
    const chests = nearest(ctx.bot, CHEST_BLOCKS, MAX_CHESTS)
    if (!chests.length) throw new SkillError(`no chest within ${SEARCH_RADIUS} blocks`)
    const lacking = []
    for (const block of chests) {
      try {
        return await withChest(ctx, block.position, (chest, b) => take(ctx, chest, b, names, item, count))
      } catch (err) {
        if (!(err instanceof SkillError && err.detail.lacking)) throw err
        lacking.push(err)
      }
    }
    if (lacking.length === 1) throw lacking[0]
    const looked = lacking.map(e => `${e.detail.lacking} at ${JSON.stringify(e.detail.chest)}`).join('; ')
    throw new SkillError(`no chest within ${SEARCH_RADIUS} blocks has ${count} ${item} (looked into ${lacking.length}: ${looked})`,
      { chests: lacking.map(e => e.detail.chest) }, 'target_not_found')
  }
}

/** Withdraw ``count`` of the first of ``names`` the open chest holds; a SkillError with
 * ``detail.lacking`` (what it holds) when it holds none or too few. */
function take (ctx, chest, block, names, item, count) {
  const stored = {}
  for (const it of chest.containerItems()) stored[it.name] = (stored[it.name] || 0) + it.count
  const name = names.find(n => (stored[n] || 0) > 0)
  const contents = Object.entries(stored).map(([n, c]) => `${c} ${n}`).join(', ') || 'nothing'
  const detail = { chest: vec(block.position), lacking: `it holds ${contents}` }
  if (!name) throw new SkillError(`the chest has no ${item} (it holds ${contents})`, detail, 'target_not_found')
  if (stored[name] < count) throw new SkillError(`the chest has only ${stored[name]} ${name}, wanted ${count}`, detail, 'target_not_found')
  return transfer(ctx, chest, block, 'withdraw', name, count)
}
