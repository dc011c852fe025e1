'use strict'
// eat: eat a food item (the given one or the most nourishing one in the inventory).
const { SkillError, resolveNames } = require('../lib/util')

module.exports = {
  stationary: true,
  args: {
    item: { type: 'string', default: null }
  },
  async run (ctx, { item }) {
    const bot = ctx.bot
    const foods = bot.registry.foodsByName || {}
    let food
    if (item) {
      const names = resolveNames(bot.registry.itemsByName, item)
      food = bot.inventory.items().find(i => names.includes(i.name))
      if (!food) throw new SkillError(`no ${item} in inventory`)
      if (!foods[food.name]) throw new SkillError(`${food.name} is not edible`)
    } else {
      const edible = bot.inventory.items().filter(i => foods[i.name])
      if (edible.length === 0) throw new SkillError('no food in inventory')
      edible.sort((a, b) => foods[b.name].foodPoints - foods[a.name].foodPoints)
      food = edible[0]
    }
    if (bot.food >= 20 && !['golden_apple', 'enchanted_golden_apple', 'chorus_fruit'].includes(food.name)) {
      throw new SkillError('not hungry (food is 20/20)', {}, 'bad_arguments')
    }
    await bot.equip(food, 'hand')
    ctx.progress(0.5, `eating ${food.name}`)
    const before = bot.food
    try {
      await bot.consume()
    } catch (err) {
      // the server never confirmed the eating (a server without hunger does not)
      throw new SkillError(`eating ${food.name} failed: the server did not confirm it (${err.message})`, {}, 'server_refused')
    }
    return { detail: { item: food.name, food_before: before, food_after: bot.food } }
  }
}
