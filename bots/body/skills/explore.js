'use strict'
// explore: walk roughly ``distance`` blocks in a direction not visited recently.
const { gotoGoal, goals } = require('../lib/move')
const { SkillError, SkillAborted, vec } = require('../lib/util')

module.exports = {
  name: 'explore',
  args: {
    distance: { type: 'number', default: 32.0 }
  },
  async run (ctx, { distance }) {
    const bot = ctx.bot
    const start = bot.entity.position.clone()
    // Deterministic per bot and attempt: the body's seeded RNG picks directions.
    const tries = 4
    for (let i = 0; i < tries; i++) {
      const angle = ctx.random() * Math.PI * 2
      const tx = start.x + Math.cos(angle) * distance
      const tz = start.z + Math.sin(angle) * distance
      ctx.progress(i / tries, `exploring towards (${Math.round(tx)}, ${Math.round(tz)})`)
      try {
        await gotoGoal(ctx, new goals.GoalNearXZ(tx, tz, 3), `(${Math.round(tx)}, ${Math.round(tz)})`)
        return { detail: { from: vec(start), to: vec(bot.entity.position) } }
      } catch (err) {
        if (err instanceof SkillAborted) throw err
        if (bot.entity.position.distanceTo(start) >= distance / 2) {
          return { detail: { from: vec(start), to: vec(bot.entity.position), partial: true } }
        }
      }
    }
    throw new SkillError(`no path: could not explore ${Math.round(distance)} blocks in ${tries} directions`)
  }
}
