'use strict'
// collect: mine N blocks of a kind (or family, e.g. "log") with the best tool and pick up the drops.
const { gotoGoal, goals } = require('../lib/move')
const { SkillError, SkillAborted, resolveNames, sleep, vec, inventoryCounts } = require('../lib/util')

const SEARCH_RADIUS = 64
const MAX_UNREACHABLE = 6

function harvestToolNames (bot, block) {
  if (!block.harvestTools) return []
  return Object.keys(block.harvestTools).map(id => bot.registry.items[id] && bot.registry.items[id].name).filter(Boolean)
}

/** Walk onto the drop near ``pos`` until the inventory grows beyond ``target`` (or 5 s pass). */
async function pickUpDrop (ctx, pos, gained, target) {
  const bot = ctx.bot
  const deadline = Date.now() + 5000
  while (Date.now() < deadline) {
    if (gained() > target) return true
    const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(pos) < 4)
    if (drop && drop.position.distanceTo(bot.entity.position) > 0.8) {
      try {
        await gotoGoal(ctx, new goals.GoalNear(drop.position.x, drop.position.y, drop.position.z, 0.5), 'the dropped item')
      } catch (err) {
        if (err instanceof SkillAborted) throw err
      }
    }
    await sleep(150, ctx.signal)
  }
  return gained() > target
}

module.exports = {
  name: 'collect',
  args: {
    block: { type: 'string' },
    count: { type: 'int', default: 1 }
  },
  async run (ctx, { block, count }) {
    const bot = ctx.bot
    const names = resolveNames(bot.registry.blocksByName, block)
    if (names.length === 0) throw new SkillError(`unknown block "${block}"`)
    const ids = names.map(n => bot.registry.blocksByName[n].id)
    const label = names.length === 1 ? names[0] : block
    const unreachable = new Set()
    // What counts is what arrived in the inventory (drops may differ from the block: stone -> cobblestone).
    const before = inventoryCounts(bot)
    const gained = () => {
      const now = inventoryCounts(bot)
      return Object.keys(now).reduce((sum, n) => sum + Math.max(0, now[n] - (before[n] || 0)), 0)
    }
    let dug = 0
    let collected = 0
    while ((collected = gained()) < count) {
      ctx.check()
      const found = bot.findBlocks({ matching: ids, maxDistance: SEARCH_RADIUS, count: 32 })
        .filter(p => !unreachable.has(p.toString()))
      if (found.length === 0) {
        if (unreachable.size > 0) throw new SkillError(`no path to any reachable ${label} (${unreachable.size} out of reach)`, { collected })
        if (collected > 0) throw new SkillError(`collected only ${collected} of ${count} ${label}: no more within ${SEARCH_RADIUS} blocks`, { collected })
        throw new SkillError(`no ${label} within ${SEARCH_RADIUS} blocks`)
      }
      const pos = found[0]
      const target = bot.blockAt(pos)
      if (!target) { unreachable.add(pos.toString()); continue }
      const tools = harvestToolNames(bot, target)
      if (tools.length > 0 && !bot.inventory.items().some(i => target.canHarvest(i.type))) {
        throw new SkillError(`missing tool: ${target.name} needs one of ${tools.slice(0, 4).join(', ')}`)
      }
      ctx.progress(collected / count, `walking to ${target.name} at ${pos}`)
      try {
        await gotoGoal(ctx, new goals.GoalLookAtBlock(pos, bot.world, { reach: 4 }), `${target.name} at ${pos}`)
      } catch (err) {
        if (err instanceof SkillAborted) throw err
        unreachable.add(pos.toString())
        if (unreachable.size >= MAX_UNREACHABLE) throw new SkillError(`no path to ${label}: ${unreachable.size} candidates out of reach`, { collected })
        continue
      }
      ctx.check()
      await bot.tool.equipForBlock(target, { requireHarvest: tools.length > 0 })
      ctx.progress(collected / count, `digging ${target.name} at ${pos}`)
      const fresh = bot.blockAt(pos)
      if (!fresh || !ids.includes(fresh.type)) continue // someone else took it
      if (!bot.canDigBlock(fresh)) { unreachable.add(pos.toString()); continue }
      const had = gained()
      await bot.dig(fresh, true)
      ctx.check()
      dug++
      await pickUpDrop(ctx, pos.offset(0.5, 0.5, 0.5), gained, had)
      ctx.progress(gained() / count, `collected ${gained()} of ${count} ${label}`)
    }
    return { detail: { collected, dug, last: vec(bot.entity.position) } }
  }
}
