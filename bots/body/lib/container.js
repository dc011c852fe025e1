'use strict'
// Finding, reaching and opening containers (chests, furnaces).
const { gotoGoal, goals } = require('./move')
const { SkillError, SkillAborted, toVec3, vec } = require('./util')

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

/** Up to ``count`` blocks among ``names`` within SEARCH_RADIUS, the nearest first. */
function nearest (bot, names, count) {
  return bot.findBlocks({ matching: blockIds(bot, names), maxDistance: SEARCH_RADIUS, count }).map(p => bot.blockAt(p)).filter(Boolean)
}

async function reach (ctx, block, what) {
  try {
    await gotoGoal(ctx, new goals.GoalLookAtBlock(block.position, ctx.bot.world, { reach: 4 }), `${what} at ${block.position}`)
  } catch (err) {
    if (err instanceof SkillAborted) throw err
    if (err instanceof SkillError && err.kind === 'timed_out') throw err
    throw new SkillError(`no path to the ${what} at ${block.position}`)
  }
}

/** Walk to the chest at ``at`` (or the nearest), open it, ``use(chest, block)``, close it. */
async function withChest (ctx, at, use) {
  const block = locate(ctx.bot, CHEST_BLOCKS, 'chest', at)
  ctx.progress(0.1, `walking to the chest at ${block.position}`)
  await reach(ctx, block, 'chest')
  ctx.check()
  const chest = await ctx.bot.openContainer(block)
  try {
    return await use(chest, block)
  } finally {
    chest.close()
  }
}

const TRANSFER_TRIES = 3

/**
 * ``chest.deposit`` or ``chest.withdraw`` (``op``) of ``count`` ``name``: the skill's result.
 * Two bodies clicking in one chest at once make the server reject a click (its slot changed
 * under us): reopen the chest and move what is still missing, up to TRANSFER_TRIES times.
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
        if (attempt >= TRANSFER_TRIES || !/rejected transaction/i.test(String(err && err.message))) {
          throw new SkillError(`${op} failed: ${err.message}`, { moved: moved() }, 'server_refused')
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

module.exports = { CHEST_ARGS, CHEST_BLOCKS, locate, nearest, reach, transfer, withChest, SEARCH_RADIUS }
