'use strict'
// go_to: walk to a position or to a player.
const { walkTo, goals, awaitPlayerEntity } = require('../lib/move')
const { SkillError, vec } = require('../lib/util')

module.exports = {
  args: {
    x: { type: 'number', default: null },
    y: { type: 'number', default: null },
    z: { type: 'number', default: null },
    player: { type: 'string', default: null },
    range: { type: 'number', default: 2.0 }
  },
  async run (ctx, { x, y, z, player, range }) {
    const bot = ctx.bot
    let goal, what, pos
    if (player) {
      const target = await awaitPlayerEntity(ctx, player)
      if (!target) throw new SkillError(`player ${player} is not in sight`)
      const p = target.position
      pos = { x: p.x, y: p.y, z: p.z }
      goal = new goals.GoalNear(p.x, p.y, p.z, Math.max(1, range))
      what = `player ${player}`
    } else if (x != null && z != null) {
      pos = { x, y, z }
      if (y == null) {
        goal = new goals.GoalNearXZ(x, z, Math.max(1, range))
        what = `(${Math.round(x)}, ${Math.round(z)})`
      } else {
        goal = new goals.GoalNear(x, y, z, Math.max(1, range))
        what = `(${Math.round(x)}, ${Math.round(y)}, ${Math.round(z)})`
      }
    } else {
      throw new SkillError('go_to needs either x and z (y optional) or a player name')
    }
    ctx.progress(0, `walking to ${what}`)
    // far (more than 64 blocks) or not loaded: in legs of 32 blocks first (lib/move.js: walkTo)
    await walkTo(ctx, pos, what, goal)
    return { detail: { reached: vec(bot.entity.position) } }
  }
}
