'use strict'
// Finding, reaching and opening containers (chests, furnaces).
const { walkTo, checkRange, goals } = require('./move')
const { REJECTED_CLICK, SkillError, toVec3, vec } = require('./util')

const SEARCH_RADIUS = 32
const CHEST_BLOCKS = ['chest', 'trapped_chest', 'barrel']

/** The arguments of a chest skill: an item, how many, the chest's position (default: the nearest). */
const CHEST_ARGS = Object.freeze({
  item: { type: 'string' },
  count: { type: 'int', default: 1 },
  x: { type: 'number', default: null },
  y: { type: 'number', default: null },
  z: { type: 'number', default: null }
})

const blockIds = (bot, names) => names.map(n => bot.registry.blocksByName[n]).filter(Boolean).map(b => b.id)

/** The block at (x, y, z) if all given, else the nearest block among ``names``. */
function locate (bot, names, what, { x, y, z }) {
  if (x != null && y != null && z != null) {
    const block = bot.blockAt(toVec3({ x, y, z }).floored())
    if (!block) throw new SkillError(`target out of reach: (${x}, ${y}, ${z}) is not loaded`)
    if (!blockIds(bot, names).includes(block.type)) throw new SkillError(`no ${what} at ${block.position} (found ${block.name})`)
    return block
  }
  const [block] = nearest(bot, names, 1)
  if (!block) throw new SkillError(`no ${what} within ${SEARCH_RADIUS} blocks`)
  return block
}

/**
 * Walk to within reach of the ``what`` among ``names`` at ``at`` ({x, y, z}, from any distance
 * up to APPROACH_MAX: in legs while it lies outside the loaded chunks, lib/move.js: walkTo) or
 * of the nearest one within SEARCH_RADIUS (all of ``at`` null); the block, looked up once its
 * chunk is loaded.
 */
async function reachAt (ctx, names, what, at) {
  const bot = ctx.bot
  if (at.x == null || at.y == null || at.z == null) {
    const block = locate(bot, names, what, at)
    await reach(ctx, block, what)
    return block
  }
  const pos = toVec3(at).floored()
  const where = `the ${what} at ${pos}`
  checkRange(bot, pos, where)
  let block = null
  ctx.progress(0.1, `walking to ${where}`)
  await walkTo(ctx, pos, where, () => {
    block = locate(bot, names, what, at)
    return new goals.GoalLookAtBlock(block.position, bot.world, { reach: 4 })
  })
  return block
}

/** Up to ``count`` blocks among ``names`` within SEARCH_RADIUS, the nearest first. */
function nearest (bot, names, count) {
  return bot.findBlocks({ matching: blockIds(bot, names), maxDistance: SEARCH_RADIUS, count }).map(p => bot.blockAt(p)).filter(Boolean)
}

/** Walk to within reach of ``block`` (nearby: one found within SEARCH_RADIUS). */
async function reach (ctx, block, what) {
  const where = `the ${what} at ${block.position}`
  ctx.progress(0.1, `walking to ${where}`)
  await walkTo(ctx, block.position, where, new goals.GoalLookAtBlock(block.position, ctx.bot.world, { reach: 4 }))
}

/** Walk to the chest at ``at`` (or the nearest), open it, ``use(chest, block)``, close it. */
async function withChest (ctx, at, use) {
  const block = await reachAt(ctx, CHEST_BLOCKS, 'chest', at)
  ctx.check()
  const chest = await ctx.bot.openContainer(block)
  try {
    return await use(chest, block)
  } finally {
    chest.close()
  }
}

const TRANSFER_TRIES = 3
// mineflayer's transfer found none of the item in the slots it moves from: the window read a
// moment before held it, and another player's click took that stack in between
const GONE = /can't find .* in slots/i

/**
 * ``chest.deposit`` or ``chest.withdraw`` (``op``) of ``count`` ``name``: the skill's result.
 * Two bodies clicking in one chest at once make the server reject a click (its slot changed
 * under us), or take the stack this body read before its own click: reopen the chest and move
 * what is still missing, up to TRANSFER_TRIES times.
 */
async function transfer (ctx, chest, block, op, name, count) {
  const bot = ctx.bot
  const id = bot.registry.itemsByName[name].id
  const held = () => bot.inventory.items().filter(i => i.name === name).reduce((s, i) => s + i.count, 0)
  const start = held()
  const moved = () => (op === 'deposit' ? start - held() : held() - start)
  ctx.progress(0.6, `${op === 'deposit' ? 'depositing' : 'withdrawing'} ${count} ${name}`)
  let attempt = 1
  const first = chest
  try {
    for (; ; attempt++) {
      try {
        await chest[op](id, null, count - moved())
        break
      } catch (err) {
        if (moved() >= count) break
        const message = String(err && err.message)
        const gone = GONE.test(message)
        if (attempt >= TRANSFER_TRIES || !(gone || REJECTED_CLICK.test(message))) {
          const detail = { moved: moved() }
          // a chest that no longer holds the item and gave none: a withdraw naming no chest
          // looks into the next
          if (gone && op === 'withdraw' && detail.moved === 0) Object.assign(detail, { chest: vec(block.position), lacking: `it no longer holds ${name}` })
          throw new SkillError(`${op} failed: ${message}`, detail, gone ? 'target_not_found' : 'server_refused')
        }
        try { chest.close() } catch (e) {}
        ctx.check()
        chest = await bot.openContainer(block)
      }
    }
  } finally {
    if (chest !== first) chest.close() // the caller closes the first one
  }
  return { detail: { item: name, count, chest: vec(block.position), tries: attempt } }
}

module.exports = { CHEST_ARGS, CHEST_BLOCKS, locate, nearest, reach, reachAt, transfer, withChest, SEARCH_RADIUS }
