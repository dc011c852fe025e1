'use strict'
// craft: craft N of an item, walking to (or placing) a crafting table when the recipe needs one.
const { gotoGoal, goals } = require('../lib/move')
const { placeItem } = require('../lib/place')
const { SkillError, SkillAborted, resolveNames, inventoryCounts } = require('../lib/util')

const TABLE_RADIUS = 32
const DELIVERY_MS = 5000 // the longest wait for a crafted result to reach the inventory

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


// What the options missing the fewest items lack, in words. Where they tie and differ only
// in the kind of an ingredient (one recipe per plank kind), that ingredient is named by its
// family ("3 planks", not the first kind of the version's recipe list: at 1.21.4 that was
// pale_oak_planks, which the agent then went to collect); the largest such group wins (at
// 1.21.4 sticks are also made of bamboo: "2 planks", not "2 bamboo").
function describeBest (options) {
  const total = (o) => o.missing.reduce((s, m) => s + m.count, 0)
  options.sort((a, b) => total(a) - total(b))
  const tied = options.filter(o => total(o) === total(options[0]) && o.missing.length === options[0].missing.length)
  const family = (name) => name.includes('_') ? name.slice(name.lastIndexOf('_') + 1) : name
  const groups = new Map()
  for (const o of tied) {
    const key = o.missing.map(m => `${m.count} ${family(m.name)}`).join(', ')
    groups.set(key, [...(groups.get(key) || []), o])
  }
  const [text, group] = [...groups.entries()].reduce((a, b) => (b[1].length > a[1].length ? b : a))
  if (group.length > 1) return { item: group[0].name, text }
  return { item: options[0].name, text: options[0].missing.map(m => `${m.count} ${m.name}`).join(', ') }
}

// Walk to where the table's face is in reach; when no spot sees its face (the planner's
// raycast from a standing spot), stand within 2 blocks of it instead, as a player steps
// up to a table it cannot see round a corner. A failure keeps the walk's own reason and kind
// (it was once reported only as "no path", whatever had happened on the way).
async function walkToTable (ctx, table) {
  const what = `crafting table at ${table.position}`
  try {
    await gotoGoal(ctx, new goals.GoalLookAtBlock(table.position, ctx.bot.world, { reach: 4 }), what)
    return
  } catch (err) {
    if (err instanceof SkillAborted) throw err
    if (!(err instanceof SkillError) || err.kind === 'timed_out') throw err
    ctx.progress(0.3, `no spot in reach of the table's face (${err.reason}): walking beside it`)
  }
  try {
    const p = table.position
    await gotoGoal(ctx, new goals.GoalNear(p.x, p.y, p.z, 2), what)
  } catch (err) {
    if (err instanceof SkillAborted || !(err instanceof SkillError)) throw err
    throw new SkillError(`no way to the crafting table at ${table.position}: ${err.reason}`, err.detail, err.kind)
  }
}

// How many `name` the inventory holds once it holds more than `before` (checked on every
// slot update), or after `ms`: the crafted result comes with the server's slot update, which
// may follow the craft's last click.
function heldOnceMore (bot, name, before, ms) {
  const held = () => inventoryCounts(bot)[name] || 0
  return new Promise(resolve => {
    if (held() > before) return resolve(held())
    const check = () => { if (held() > before) done() }
    const timer = setTimeout(done, ms)
    function done () {
      clearTimeout(timer)
      bot.inventory.removeListener('updateSlot', check)
      resolve(held())
    }
    bot.inventory.on('updateSlot', check)
  })
}

// Craft `times` x `recipe` (at `table`, or in the inventory's grid) and return how many
// `name` it made; the server refusing, or delivering nothing, is the skill's failure.
async function craftOnce (bot, name, recipe, times, table) {
  const before = inventoryCounts(bot)[name] || 0
  try {
    await bot.craft(recipe, times, table)
  } catch (err) {
    throw new SkillError(`crafting ${name} failed: ${err.message}`, {}, 'server_refused')
  }
  const made = (await heldOnceMore(bot, name, before, DELIVERY_MS)) - before
  if (made <= 0) throw new SkillError(`crafting ${name} failed: the server did not deliver the result`, {}, 'server_refused')
  return made
}

// Craft `count` planks from the logs held when no one kind of log is enough (2 oak + 1 birch
// log for 12 planks once answered "missing ingredients: 1 oak_log"): each held log kind makes
// planks of its kind (names: the plank kinds asked for, the asked kind first), until `count`.
// Null when all the held logs together are not enough (the caller reports what is missing).
async function planksFromMixedLogs (ctx, names, count) {
  const bot = ctx.bot
  const have = inventoryCounts(bot)
  const kinds = []
  for (const name of names) {
    const logs = have[name.replace('_planks', '_log')] || 0
    const recipe = logs > 0 && bot.recipesAll(bot.registry.itemsByName[name].id, null, false)
      .find(r => r.delta.some(d => d.count < 0 && bot.registry.items[d.id].name === name.replace('_planks', '_log')))
    if (recipe) kinds.push({ name, recipe, logs, per: recipe.result.count })
  }
  if (kinds.reduce((n, k) => n + k.logs * k.per, 0) < count) return null
  const crafted = {}
  let left = count
  for (const k of kinds) {
    if (left <= 0) break
    const times = Math.min(k.logs, Math.ceil(left / k.per))
    ctx.check()
    ctx.progress(0.5, `crafting ${times}x ${k.name}`)
    const made = await craftOnce(bot, k.name, k.recipe, times, null)
    crafted[k.name] = made
    left -= made
  }
  const total = Object.values(crafted).reduce((a, b) => a + b, 0)
  return { detail: { item: Object.keys(crafted).join('+'), crafted: total, by_kind: crafted, used_table: false } }
}

module.exports = {
  args: {
    item: { type: 'string' },
    count: { type: 'int', default: 1 }
  },
  async run (ctx, { item, count }) {
    const bot = ctx.bot
    let names = resolveNames(bot.registry.itemsByName, item)
    if (names.length === 0) throw new SkillError(`unknown item "${item}"`)
    // planks of one kind asked while holding logs of another: any log makes planks
    const anyPlanks = names.length === 1 && names[0].endsWith('_planks') && !bot.inventory.items().some(i => i.name === names[0].replace('_planks', '_log'))
    if (anyPlanks) names = [...names, ...resolveNames(bot.registry.itemsByName, 'planks').filter(n => n !== names[0])]
    // planks of the asked kind first, then of the other logs held (any planks serve a recipe)
    if (names.length === 1 && names[0].endsWith('_planks')) names = [...names, ...resolveNames(bot.registry.itemsByName, 'planks').filter(n => n !== names[0])]
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
    if (ready.length === 0 && names.every(n => n.endsWith('_planks'))) {
      // planks from logs of several kinds (no one kind is enough): a kind at a time
      const mixed = await planksFromMixedLogs(ctx, names, count)
      if (mixed) return mixed
    }
    if (ready.length === 0) {
      const best = describeBest(options)
      throw new SkillError(`missing ingredients: ${best.text}`, { item: best.item })
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
      await walkToTable(ctx, table)
    }
    ctx.check()
    ctx.progress(0.5, `crafting ${choice.times}x ${choice.name}`)
    const made = await craftOnce(bot, choice.name, choice.recipe, choice.times, choice.recipe.requiresTable ? table : null)
    return { detail: { item: choice.name, crafted: made, used_table: !!choice.recipe.requiresTable } }
  }
}
