'use strict'
// withdraw: take N of an item out of a chest (given position or the nearest one).
const { locate, reach } = require('../lib/container')
const { SkillError, resolveNames, vec } = require('../lib/util')

module.exports = {
  name: 'withdraw',
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
    if (names.length === 0) throw new SkillError(`unknown item "${item}"`)
    const block = locate(bot, ['chest', 'trapped_chest', 'barrel'], 'chest', { x, y, z })
    ctx.progress(0.1, `walking to the chest at ${block.position}`)
    await reach(ctx, block, 'chest')
    ctx.check()
    const chest = await bot.openContainer(block)
    try {
      const stored = {}
      for (const it of chest.containerItems()) stored[it.name] = (stored[it.name] || 0) + it.count
      const name = names.find(n => (stored[n] || 0) > 0)
      if (!name) {
        const contents = Object.entries(stored).map(([n, c]) => `${c} ${n}`).join(', ') || 'nothing'
        throw new SkillError(`the chest has no ${item} (it holds ${contents})`)
      }
      if (stored[name] < count) throw new SkillError(`the chest has only ${stored[name]} ${name}, wanted ${count}`)
      ctx.progress(0.6, `withdrawing ${count} ${name}`)
      try {
        await chest.withdraw(bot.registry.itemsByName[name].id, null, count)
      } catch (err) {
        throw new SkillError(`withdraw failed: ${err.message}`)
      }
      return { detail: { item: name, count, chest: vec(block.position) } }
    } finally {
      chest.close()
    }
  }
}
