'use strict'
// deposit: put N of an item into a chest (given position or the nearest one).
const { CHEST_ARGS, transfer, withChest } = require('../lib/container')
const { SkillError, resolveNames, inventoryCounts } = require('../lib/util')

module.exports = {
  args: CHEST_ARGS,
  async run (ctx, { item, count, x, y, z }) {
    const bot = ctx.bot
    const names = resolveNames(bot.registry.itemsByName, item)
    const have = inventoryCounts(bot)
    const name = names.find(n => (have[n] || 0) > 0)
    if (!name) throw new SkillError(`no ${item} in inventory`)
    if (have[name] < count) throw new SkillError(`not enough ${name}: have ${have[name]}, want to deposit ${count}`)
    return withChest(ctx, { x, y, z }, (chest, block) => transfer(ctx, chest, block, 'deposit', name, count))
  }
}
