'use strict'
// go_to: walk to a position or to a player.
const { gotoGoal, goals, awaitPlayerEntity } = require('../lib/move')
const { SkillError, vec } = require('../lib/util')

const LEG = 32 // blocks: a long walk goes in legs of this length (A* cost grows fast with distance)
const LEG_RANGE = 6
const LONG = 64 // blocks: a walk shorter than this is planned in one search

/**
 * A walk longer than LONG goes towards (x, z) in legs of LEG blocks until within LEG of it: each leg's A* search is
 * small, and the next leg is planned over chunks that are loaded by then. A leg whose
 * waypoint cannot be reached is tried 40 degrees to either side; if none works the final
 * goal is tried directly (its failure is the skill's).
 */
async function legs (ctx, x, z, what) {
  const bot = ctx.bot
  for (let i = 0; i < 12; i++) {
    const p = bot.entity.position
    const dx = x - p.x
    const dz = z - p.z
    const d = Math.hypot(dx, dz)
    if (d <= (i === 0 ? LONG : LEG + LEG_RANGE)) return
    const a = Math.atan2(dz, dx)
    let moved = false
    for (const turn of [0, 0.7, -0.7]) {
      const wx = p.x + LEG * Math.cos(a + turn)
      const wz = p.z + LEG * Math.sin(a + turn)
      ctx.progress(0, `walking to ${what} (leg ${i + 1})`)
      try {
        await gotoGoal(ctx, new goals.GoalNearXZ(wx, wz, LEG_RANGE), `a waypoint towards ${what}`)
        moved = true
        break
      } catch (err) {
        if (!(err instanceof SkillError)) throw err
      }
    }
    if (!moved) return
  }
}

module.exports = {
  name: 'go_to',
  args: {
    x: { type: 'number', default: null },
    y: { type: 'number', default: null },
    z: { type: 'number', default: null },
    player: { type: 'string', default: null },
    range: { type: 'number', default: 2.0 }
  },
  async run (ctx, { x, y, z, player, range }) {
    const bot = ctx.bot
    let goal, what
    if (player) {
      const target = await awaitPlayerEntity(ctx, player)
      if (!target) throw new SkillError(`player ${player} is not in sight`)
      const p = target.position
      goal = new goals.GoalNear(p.x, p.y, p.z, Math.max(1, range))
      what = `player ${player}`
    } else if (x != null && z != null) {
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
    if (!player && x != null && z != null) await legs(ctx, x, z, what)
    await gotoGoal(ctx, goal, what)
    return { detail: { reached: vec(bot.entity.position) } }
  }
}
