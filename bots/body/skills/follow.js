'use strict'
// follow: keep within range of a player for a while.
const { goals, movementsFor, playerEntity, awaitPlayerEntity } = require('../lib/move')
const { SkillError, sleep } = require('../lib/util')

module.exports = {
  stationary: true, // standing still next to a resting player is progress
  args: {
    player: { type: 'string' },
    range: { type: 'number', default: 3.0 },
    duration: { type: 'number', default: 30.0 }
  },
  async run (ctx, { player, range, duration }) {
    const bot = ctx.bot
    const target = await awaitPlayerEntity(ctx, player)
    if (!target) throw new SkillError(`player ${player} is not in sight`)
    bot.pathfinder.setMovements(movementsFor(bot))
    bot.pathfinder.setGoal(new goals.GoalFollow(target, Math.max(1, range)), true)
    const end = Date.now() + duration * 1000
    let lostFor = 0
    try {
      while (Date.now() < end) {
        await sleep(250, ctx.signal)
        const still = playerEntity(bot, player)
        if (!still || !still.isValid) {
          lostFor += 250
          if (lostFor > 5000) throw new SkillError(`lost sight of ${player}`)
        } else {
          lostFor = 0
        }
        ctx.progress(1 - (end - Date.now()) / (duration * 1000), `following ${player}`)
      }
    } finally {
      try { bot.pathfinder.setGoal(null) } catch (e) {}
    }
    return {}
  }
}
