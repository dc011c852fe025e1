'use strict'
// collect: mine N blocks of a kind (or family, e.g. "log") with the best tool and pick up the drops.
// What counts is what arrived in the inventory (stone -> cobblestone). After each dig the body
// waits for the drops to appear, walks until they are within pickup range and waits for the
// pickup (events with timeouts, no fixed sleeps). Fewer than asked is a failure that says how
// many arrived (detail.collected) and why (outcome.failure): target_not_found,
// target_out_of_reach, tool_missing, block_gone, drops_not_reached.
const { gotoGoal, goals } = require('../lib/move')
const { GoalPickup, ItemWatch, inPickupRange } = require('../lib/items')
const { SkillError, SkillAborted, resolveNames, vec, inventoryCounts } = require('../lib/util')

const SEARCH_RADIUS = 64
const MAX_UNREACHABLE = 6
const MAX_EXTRA_DIGS = 3 // digs beyond `count` whose drops did not arrive before giving up
const MAX_GONE = 6 // targets taken by someone else before we dug them
const DROP_SPAWN_MS = 1500
const SETTLE_MS = 1200 // a drop lands and is picked up where it fell (pickup delay 0.5 s)
const PICKUP_MS = 2500 // per stack, once within range of where it lies

// blocks that drop what was asked for under another name (what a player digs for it)
const DROPPED_BY = { dirt: ['grass_block'], cobblestone: ['stone'] }

const SIDES = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

function harvestToolNames (bot, block) {
  if (!block.harvestTools) return []
  return Object.keys(block.harvestTools).map(id => bot.registry.items[id] && bot.registry.items[id].name).filter(Boolean)
}

/**
 * Blocks with an open face first (a buried block needs digging through others), then
 * those not below the feet (digging down leaves pits to fall into) nor out of reach
 * above (the top of a tree), then nearest. Never
 * the block under the body.
 */
function candidates (bot, ids, skip) {
  const open = (p) => SIDES.some(([x, y, z]) => {
    const b = bot.blockAt(p.offset(x, y, z))
    return b && b.boundingBox === 'empty'
  })
  const me = bot.entity.position
  const feet = Math.floor(me.y + 0.01)
  const under = (p) => p.y === feet - 1 && Math.abs(p.x + 0.5 - me.x) < 0.8 && Math.abs(p.z + 0.5 - me.z) < 0.8
  return bot.findBlocks({ matching: ids, maxDistance: SEARCH_RADIUS, count: 64 })
    .filter(p => !skip.has(p.toString()) && !under(p))
    .map(p => ({ p, rank: (open(p) ? 0 : 1000) + (p.y < feet ? 8 : 0) + (p.y > feet + 3 ? 24 : 0) + p.distanceTo(me) }))
    .sort((a, b) => a.rank - b.rank)
    .map(x => x.p)
}

/**
 * Walk into pickup range of every stack ``watch`` saw and wait for each pickup. A stack is
 * first given SETTLE_MS to land (most are picked up where they fall); one still lying there
 * is walked to where it lies now, up to 3 times (it may still be rolling).
 */
async function pickUpDrops (ctx, watch) {
  const bot = ctx.bot
  const taken = (e) => () => watch.collected.has(e.id) || watch.gone.has(e.id)
  for (const e of [...watch.spawned.values()]) {
    if (await watch.until(taken(e), SETTLE_MS, ctx.signal)) continue
    for (let round = 0; round < 3 && !taken(e)() && e.isValid; round++) {
      if (!inPickupRange(bot.entity.position, e.position)) {
        // near it first; then onto the block it lies in (a hole, or below a half block we stand on)
        const p = e.position
        const goal = round === 0 ? new GoalPickup(p) : new goals.GoalBlock(Math.floor(p.x), Math.floor(p.y + 0.05), Math.floor(p.z))
        try {
          await gotoGoal(ctx, goal, 'the dropped item')
        } catch (err) {
          if (err instanceof SkillAborted) throw err
          if (round > 0) break // out of reach
        }
      }
      await watch.until(taken(e), PICKUP_MS, ctx.signal)
    }
  }
}

module.exports = {
  name: 'collect',
  args: {
    block: { type: 'string' },
    count: { type: 'int', default: 1 }
  },
  async run (ctx, { block, count }) {
    const bot = ctx.bot
    const asked = resolveNames(bot.registry.blocksByName, block)
    const names = [...asked, ...asked.flatMap(n => DROPPED_BY[n] || [])]
    if (names.length === 0) throw new SkillError(`unknown block "${block}"`, {}, 'target_not_found')
    const ids = names.map(n => bot.registry.blocksByName[n].id)
    const label = asked.length === 1 ? asked[0] : block
    const unreachable = new Set()
    const before = inventoryCounts(bot)
    const gained = () => {
      const now = inventoryCounts(bot)
      return Object.keys(now).reduce((sum, n) => sum + Math.max(0, now[n] - (before[n] || 0)), 0)
    }
    let dug = 0
    let missed = 0 // digs whose drops did not reach the inventory
    let gone = 0
    const misses = [] // where a dig's drops did not arrive: the block, the body, the stacks seen
    const short = (why, kind) => {
      const c = gained()
      const head = c > 0 ? `collected only ${c} of ${count} ${label}: ` : ''
      const out = [...unreachable].slice(0, 8)
      return new SkillError(head + why, { collected: c, wanted: count, dug, drops_missed: missed, misses, unreachable: out, body: vec(bot.entity.position) }, kind)
    }
    while (gained() < count) {
      ctx.check()
      if (missed > MAX_EXTRA_DIGS) throw short(`the drops of ${missed} dug blocks did not reach the inventory`, 'drops_not_reached')
      if (gone >= MAX_GONE) throw short(`${gone} ${label} blocks were taken by others first`, 'block_gone')
      const found = candidates(bot, ids, unreachable)
      if (found.length === 0) {
        if (unreachable.size > 0) throw short(`no path to any reachable ${label} (${unreachable.size} out of reach)`, 'target_out_of_reach')
        throw short(gained() > 0 ? `no more within ${SEARCH_RADIUS} blocks` : `no ${label} within ${SEARCH_RADIUS} blocks`, 'target_not_found')
      }
      const pos = found[0]
      const target = bot.blockAt(pos)
      if (!target) { unreachable.add(pos.toString()); continue }
      const tools = harvestToolNames(bot, target)
      if (tools.length > 0 && !bot.inventory.items().some(i => target.canHarvest(i.type))) {
        throw short(`missing tool: ${target.name} needs one of ${tools.slice(0, 4).join(', ')}`, 'tool_missing')
      }
      ctx.progress(gained() / count, `walking to ${target.name} at ${pos}`)
      try {
        await gotoGoal(ctx, new goals.GoalLookAtBlock(pos, bot.world, { reach: 4 }), `${target.name} at ${pos}`)
      } catch (err) {
        if (err instanceof SkillAborted) throw err
        unreachable.add(pos.toString())
        if (unreachable.size >= MAX_UNREACHABLE) throw short(`no path to ${label}: ${unreachable.size} candidates out of reach`, 'target_out_of_reach')
        continue
      }
      ctx.check()
      await bot.tool.equipForBlock(target, { requireHarvest: tools.length > 0 })
      ctx.progress(gained() / count, `digging ${target.name} at ${pos}`)
      const fresh = bot.blockAt(pos)
      if (!fresh || !ids.includes(fresh.type)) { gone++; continue } // someone else took it
      if (!bot.canDigBlock(fresh)) { unreachable.add(pos.toString()); continue }
      const had = gained()
      const centre = pos.offset(0.5, 0.5, 0.5)
      const watch = new ItemWatch(bot, () => centre, 2.5)
      try {
        await bot.dig(fresh, true)
        ctx.check()
        dug++
        await watch.until(() => gained() > had || watch.spawned.size > 0, DROP_SPAWN_MS, ctx.signal)
        await pickUpDrops(ctx, watch)
        if (gained() <= had) {
          missed++
          if (misses.length < 4) {
            misses.push({ block: fresh.name, at: vec(pos), body: vec(bot.entity.position), drops: [...watch.spawned.values()].map(e => vec(e.position)) })
          }
        }
      } finally {
        watch.close()
      }
      ctx.progress(gained() / count, `collected ${gained()} of ${count} ${label}`)
    }
    return { detail: { collected: gained(), wanted: count, dug, drops_missed: missed, misses, last: vec(bot.entity.position) } }
  }
}
