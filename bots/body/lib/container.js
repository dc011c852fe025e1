'use strict'
// Finding, reaching and opening containers (chests, furnaces).
const { gotoGoal, goals } = require('./move')
const { SkillError, SkillAborted, toVec3 } = require('./util')

const SEARCH_RADIUS = 32

/** The block at (x, y, z) if all given, else the nearest block among ``names``. */
function locate (bot, names, what, { x, y, z }) {
  const ids = names.map(n => bot.registry.blocksByName[n]).filter(Boolean).map(b => b.id)
  if (x != null && y != null && z != null) {
    const block = bot.blockAt(toVec3({ x, y, z }).floored())
    if (!block) throw new SkillError(`target out of reach: (${x}, ${y}, ${z}) is not loaded`)
    if (!ids.includes(block.type)) throw new SkillError(`no ${what} at ${block.position} (found ${block.name})`)
    return block
  }
  const block = bot.findBlock({ matching: ids, maxDistance: SEARCH_RADIUS })
  if (!block) throw new SkillError(`no ${what} within ${SEARCH_RADIUS} blocks`)
  return block
}

async function reach (ctx, block, what) {
  try {
    await gotoGoal(ctx, new goals.GoalLookAtBlock(block.position, ctx.bot.world, { reach: 4 }), `${what} at ${block.position}`)
  } catch (err) {
    if (err instanceof SkillAborted) throw err
    throw new SkillError(`no path to the ${what} at ${block.position}`)
  }
}

module.exports = { locate, reach, SEARCH_RADIUS }
