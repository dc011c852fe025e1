'use strict'
// craft: craft N of an item, walking to (or placing) a crafting table when the recipe needs one.
const { gotoGoal, goals } = require('../lib/move')
const { placeItem } = require('../lib/place')
const { SkillError, SkillAborted, resolveNames, inventoryCounts } = require('../lib/util')

const TABLE_RADIUS = 32

function missingFor (bot, recipe, times) {
  const have = inventoryCounts(bot)
  const missing = []
  for (const d of recipe.delta) {
    if (d.count >= 0) continue
    const name = bot.registry.items[d.id].name
    const need = -d.count * times - (have[name] || 0)
    if (need > 0) missing.push({ name, count: need })
  }
  return missing
}

const describe = (missing) => missing.map(m => `${m.count} ${m.name}`).join(', ')

module.exports = {
  name: 'craft',
  args: {
    item: { type: 'string' },
    count: { type: 'int', default: 1 }
  },
  async run (ctx, { item, count }) {
    const bot = ctx.bot
    let names = resolveNames(bot.registry.itemsByName, item)
    if (names.length === 0) throw new SkillError(`unknown item "${item}"`)
    // planks of one kind asked while holding logs of another: any log makes planks (issue 18)
    const anyPlanks = names.length === 1 && names[0].endsWith('_planks') && !bot.inventory.items().some(i => i.name === names[0].replace('_planks', '_log'))
    if (anyPlanks) names = [...names, ...resolveNames(bot.registry.itemsByName, 'planks').filter(n => n !== names[0])]
    let table = bot.findBlock({ matching: bot.registry.blocksByName.crafting_table.id, maxDistance: TABLE_RADIUS })

    // Every recipe for every candidate name, each with how many crafts it needs.
    const options = []
    for (const name of names) {
      const id = bot.registry.itemsByName[name].id
      for (const recipe of bot.recipesAll(id, null, true)) {
        const times = Math.ceil(count / recipe.result.count)
        options.push({ name, recipe, times, missing: missingFor(bot, recipe, times) })
      }
    }
    if (options.length === 0) throw new SkillError(`${item} cannot be crafted`, {}, 'bad_arguments')
    const ready = options.filter(o => o.missing.length === 0)
    if (ready.length === 0) {
      options.sort((a, b) => a.missing.reduce((s, m) => s + m.count, 0) - b.missing.reduce((s, m) => s + m.count, 0))
      const best = options[0]
      throw new SkillError(`missing ingredients: ${describe(best.missing)}`, { item: best.name })
    }
    // Prefer a recipe that does not need a table.
    ready.sort((a, b) => Number(a.recipe.requiresTable) - Number(b.recipe.requiresTable))
    const choice = ready[0]
    if (choice.recipe.requiresTable) {
      if (!table) {
        if ((inventoryCounts(bot).crafting_table || 0) === 0) {
          throw new SkillError(`no crafting table within ${TABLE_RADIUS} blocks (and none in inventory)`)
        }
        ctx.progress(0.1, 'placing a crafting table')
        table = await placeItem(ctx, 'crafting_table', null)
      }
      ctx.progress(0.2, `walking to the crafting table at ${table.position}`)
      try {
        await gotoGoal(ctx, new goals.GoalLookAtBlock(table.position, bot.world, { reach: 4 }), `crafting table at ${table.position}`)
      } catch (err) {
        if (err instanceof SkillAborted) throw err
        if (err instanceof SkillError && err.kind === 'timed_out') throw err
        throw new SkillError(`no path to the crafting table at ${table.position}`)
      }
    }
    ctx.check()
    ctx.progress(0.5, `crafting ${choice.times}x ${choice.name}`)
    const before = inventoryCounts(bot)[choice.name] || 0
    try {
      await bot.craft(choice.recipe, choice.times, choice.recipe.requiresTable ? table : null)
    } catch (err) {
      throw new SkillError(`crafting ${choice.name} failed: ${err.message}`, {}, 'server_refused')
    }
    const made = (inventoryCounts(bot)[choice.name] || 0) - before
    if (made <= 0) throw new SkillError(`crafting ${choice.name} failed: the server did not deliver the result`, {}, 'server_refused')
    return { detail: { item: choice.name, crafted: made, used_table: !!choice.recipe.requiresTable } }
  }
}
