'use strict'
// Pathfinding helpers: cancellable goto with failure reasons a model can act on.

const { goals, Movements } = require('mineflayer-pathfinder')
const { SkillError, SkillAborted } = require('./util')

/** Movements for this bot (built once per bot and setting: the constructor scans every block state). */
function movementsFor (bot, { canDig = false } = {}) {
  if (!bot.pianoMovements) bot.pianoMovements = {}
  const key = canDig ? 'dig' : 'walk'
  let m = bot.pianoMovements[key]
  if (!m) {
    m = new Movements(bot)
    m.canDig = canDig
    m.allow1by1towers = false
    m.allowSprinting = true
    m.allowParkour = true
    bot.pianoMovements[key] = m
  }
  return m
}

/**
 * Walk until ``goal`` is reached. Rejects with SkillError('no path ...') when the
 * pathfinder gives up, and with SkillAborted when ``ctx.signal`` aborts.
 */
async function gotoGoal (ctx, goal, what, opts = {}) {
  const bot = ctx.bot
  ctx.check()
  if (goal.isEnd(bot.entity.position.floored())) return
  bot.pathfinder.setMovements(movementsFor(bot, opts))
  const aborted = new Promise((resolve, reject) => {
    const onAbort = () => reject(new SkillAborted(String(ctx.signal.reason || 'aborted')))
    if (ctx.signal.aborted) onAbort()
    ctx.signal.addEventListener('abort', onAbort, { once: true })
  })
  aborted.catch(() => {})
  try {
    await Promise.race([bot.pathfinder.goto(goal), aborted])
  } catch (err) {
    if (err instanceof SkillAborted) throw err
    if (ctx.signal.aborted) throw new SkillAborted(String(ctx.signal.reason || 'aborted'))
    if (err && (err.name === 'NoPath' || err.name === 'Timeout')) throw new SkillError(`no path to ${what}`)
    if (err && err.name === 'GoalChanged') throw new SkillAborted('goal changed')
    throw new SkillError(`could not reach ${what}: ${err && err.message}`)
  } finally {
    try { bot.pathfinder.setGoal(null) } catch (e) {}
  }
  // goto() resolves on an empty path too: check that the goal was really reached.
  if (!goal.isEnd(bot.entity.position.floored())) {
    throw new SkillError(`no path to ${what}`)
  }
}

function playerEntity (bot, name) {
  const p = bot.players[name]
  if (p && p.entity) return p.entity
  const lower = String(name).toLowerCase()
  for (const [username, player] of Object.entries(bot.players)) {
    if (username.toLowerCase() === lower && player.entity) return player.entity
  }
  return null
}

module.exports = { goals, movementsFor, gotoGoal, playerEntity }
