'use strict'
// smelt: smelt N of an input item in a furnace (nearest within 32 blocks, or placed from the inventory).
const { locate, reach } = require('../lib/container')
const { placeItem } = require('../lib/place')
const { takeSmelted } = require('../lib/furnace')
const { SkillError, SkillAborted, resolveNames, inventoryCounts } = require('../lib/util')

// Items smelted per fuel item (vanilla burn times / 200 ticks).
const FUEL_VALUE = { coal: 8, charcoal: 8, coal_block: 80, lava_bucket: 100, blaze_rod: 12 }
function fuelValue (name) {
  if (FUEL_VALUE[name]) return FUEL_VALUE[name]
  if (name.endsWith('_log') || name.endsWith('_planks') || name.endsWith('_wood')) return 1.5
  if (name === 'stick') return 0.5
  return 0
}
const SMELTABLE = /(_ore|^sand$|^red_sand$|^cobblestone$|_log$|^raw_|^beef$|^porkchop$|^chicken$|^mutton$|^rabbit$|^cod$|^salmon$|^potato$|^clay_ball$|^kelp$|^cactus$|^netherrack$|^stone$|^wet_sponge$|^ancient_debris$)/

// What an earlier smelt left in the furnace (its output, an input or fuel of another kind)
// is taken out first, as a player would: putting coal on top of planks failed with
// "destination full" (6 of 40 smelts of the item-progression explorers).
async function clearFor (bot, furnace, input, fuelName) {
  const name = (it) => it && bot.registry.items[it.type].name
  if (furnace.outputItem()) await furnace.takeOutput()
  const inSlot = furnace.inputItem()
  if (inSlot && name(inSlot) !== input) await furnace.takeInput()
  const fuelSlot = furnace.fuelItem()
  if (fuelSlot && name(fuelSlot) !== fuelName) await furnace.takeFuel()
}

module.exports = {
  args: {
    item: { type: 'string' },
    count: { type: 'int', default: 1 },
    fuel: { type: 'string', default: null }
  },
  async run (ctx, { item, count, fuel }) {
    const bot = ctx.bot
    const have = inventoryCounts(bot)
    const names = resolveNames(bot.registry.itemsByName, item)
    const input = names.find(n => (have[n] || 0) > 0) || names[0]
    if (!input) throw new SkillError(`unknown item "${item}"`)
    if (!SMELTABLE.test(input)) throw new SkillError(`${input} cannot be smelted`)
    if ((have[input] || 0) < count) throw new SkillError(`missing ingredients: ${count - (have[input] || 0)} ${input}`)
    let fuelName = null
    if (fuel) {
      fuelName = resolveNames(bot.registry.itemsByName, fuel).find(n => (have[n] || 0) > 0 && n !== input)
      if (!fuelName) throw new SkillError(`no ${fuel} in inventory to use as fuel`)
    } else {
      const fuels = Object.keys(have).filter(n => n !== input && fuelValue(n) > 0)
      fuels.sort((a, b) => fuelValue(b) - fuelValue(a))
      fuelName = fuels[0]
      if (!fuelName) throw new SkillError('no fuel in inventory (coal, charcoal, planks or logs)')
    }
    const fuelNeeded = Math.ceil(count / fuelValue(fuelName))
    if (have[fuelName] < fuelNeeded) throw new SkillError(`missing fuel: ${fuelNeeded - have[fuelName]} ${fuelName}`)

    let block
    try {
      block = locate(bot, ['furnace'], 'furnace', {})
    } catch (err) {
      if (!(have.furnace > 0)) throw new SkillError('no furnace within 32 blocks (and none in inventory)')
      block = await placeItem(ctx, 'furnace', null)
    }
    await reach(ctx, block, 'furnace')
    ctx.check()
    const furnace = await bot.openFurnace(block)
    let taken = 0
    try {
      await clearFor(bot, furnace, input, fuelName)
      await furnace.putFuel(bot.registry.itemsByName[fuelName].id, null, fuelNeeded)
      await furnace.putInput(bot.registry.itemsByName[input].id, null, count)
      taken = await takeSmelted(ctx, furnace, { input, count, fuelId: bot.registry.itemsByName[fuelName].id })
    } catch (err) {
      if (err instanceof SkillAborted || err instanceof SkillError) throw err
      throw new SkillError(`smelting failed: ${err.message}`)
    } finally {
      furnace.close()
    }
    return { detail: { input, smelted: taken, fuel: fuelName } }
  }
}
