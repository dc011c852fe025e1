'use strict'
// withdraw: take N of an item out of a chest (given position or the nearest one).
const { CHEST_ARGS, transfer, withChest } = require('../lib/container')
const { SkillError, resolveNames } = require('../lib/util')

module.exports = {
  name: 'withdraw',
  args: CHEST_ARGS,
  async run (ctx, { item, count, x, y, z }) {
    const names = resolveNames(ctx.bot.registry.itemsByName, item)
    if (names.length === 0) throw new SkillError(`unknown item "${item}"`)
    return withChest(ctx, { x, y, z }, (chest, block) => {
      const stored = {}
      for (const it of chest.containerItems()) stored[it.name] = (stored[it.name] || 0) + it.count
      const name = names.find(n => (stored[n] || 0) > 0)
      if (!name) {
        const contents = Object.entries(stored).map(([n, c]) => `${c} ${n}`).join(', ') || 'nothing'
        throw new SkillError(`the chest has no ${item} (it holds ${contents})`, {}, 'target_not_found')
      }
      if (stored[name] < count) throw new SkillError(`the chest has only ${stored[name]} ${name}, wanted ${count}`, {}, 'target_not_found')
      return transfer(ctx, chest, block, 'withdraw', name, count)
    })
  }
}
