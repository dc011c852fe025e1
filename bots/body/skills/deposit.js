'use strict'
// deposit: put N of an item into a chest (given position or the nearest one).
const { locate, reach } = require('../lib/container')
const { SkillError, resolveNames, inventoryCounts, vec } = require('../lib/util')

module.exports = {
  name: 'deposit',
  args: {
    item: { type: 'string' },
    count: { type: 'int', default: 1 },
    x: { type: 'number', default: null },
    y: { type: 'number', default: null },
    z: { type: 'number', default: null }
  },
  async run (ctx, { item, count, x, y, z }) {
    const bot = ctx.bot
    const names = resolveNames(bot.registry.itemsByName, item)
    const have = inventoryCounts(bot)
    const name = names.find(n => (have[n] || 0) > 0)
    if (!name) throw new SkillError(`no ${item} in inventory`)
    if (have[name] < count) throw new SkillError(`not enough ${name}: have ${have[name]}, want to deposit ${count}`)
    const block = locate(bot, ['chest', 'trapped_chest', 'barrel'], 'chest', { x, y, z })
    ctx.progress(0.1, `walking to the chest at ${block.position}`)
    await reach(ctx, block, 'chest')
    ctx.check()
    const chest = await bot.openContainer(block)
    try {
      ctx.progress(0.6, `depositing ${count} ${name}`)
      await chest.deposit(bot.registry.itemsByName[name].id, null, count)
    } catch (err) {
      throw new SkillError(`deposit failed: ${err.message}`)
    } finally {
      chest.close()
    }
    return { detail: { item: name, count, chest: vec(block.position) } }
  }
}
