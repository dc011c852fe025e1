'use strict'
// equip: hold or wear an item.
const { SkillError, resolveNames } = require('../lib/util')

module.exports = {
  stationary: true,
  args: {
    item: { type: 'string' },
    destination: { type: 'string', default: 'hand' }
  },
  async run (ctx, { item, destination }) {
    const bot = ctx.bot
    const names = resolveNames(bot.registry.itemsByName, item)
    const found = bot.inventory.items().find(i => names.includes(i.name))
    if (!found) throw new SkillError(`no ${item} in inventory`)
    try {
      await bot.equip(found, destination)
    } catch (err) {
      throw new SkillError(`cannot equip ${found.name} to ${destination}: ${err.message}`)
    }
    return { detail: { item: found.name, destination } }
  }
}
