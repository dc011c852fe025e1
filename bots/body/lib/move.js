'use strict'
// Pathfinding helpers: cancellable goto with failure reasons a model can act on.

const { goals, Movements } = require('mineflayer-pathfinder')
const { SkillError, SkillAborted, sleep } = require('./util')

const EMPTY_PATH_RETRIES = 3

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
  // goto() also resolves when the planner returns an empty path without reaching the
  // goal (e.g. planning from a half block such as farmland): retry that a few times.
  for (let attempt = 1; ; attempt++) {
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
    if (goal.isEnd(bot.entity.position.floored())) return
    if (attempt >= EMPTY_PATH_RETRIES) throw new SkillError(`no path to ${what}`)
    await sleep(250 * attempt, ctx.signal)
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

/**
 * The entity of player ``name``; when the player is online but its entity has not
 * reached us yet (it just joined or came into view), wait up to ``ms`` for it.
 * Null if the player is not in sight after that.
 */
async function awaitPlayerEntity (ctx, name, ms = 3000) {
  const bot = ctx.bot
  const deadline = Date.now() + ms
  const online = () => Object.keys(bot.players).some(u => u.toLowerCase() === String(name).toLowerCase())
  let entity = playerEntity(bot, name)
  while (!entity && online() && Date.now() < deadline) {
    await sleep(100, ctx.signal)
    entity = playerEntity(bot, name)
  }
  return entity
}

module.exports = { goals, movementsFor, gotoGoal, playerEntity, awaitPlayerEntity }
