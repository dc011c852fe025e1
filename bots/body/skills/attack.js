'use strict'
// attack: fight the nearest mob of a kind (or a player by name) until it is gone, with the
// best sword or axe in the inventory.
const { goals, movementsFor, awaitPlayerEntity } = require('../lib/move')
const { SkillError, sleep } = require('../lib/util')

const SEARCH_RADIUS = 32
const REACH = 3.5
const HIT_INTERVAL_MS = 400
// Best first: swords, then axes (vanilla 1.16 attack damage).
const WEAPONS = [
  'netherite_sword', 'diamond_sword', 'iron_sword', 'stone_sword', 'golden_sword', 'wooden_sword',
  'netherite_axe', 'diamond_axe', 'iron_axe', 'stone_axe', 'golden_axe', 'wooden_axe'
]

module.exports = {
  args: {
    target: { type: 'string' }
  },
  async run (ctx, { target }) {
    const bot = ctx.bot
    const wanted = String(target).toLowerCase()
    let entity = bot.nearestEntity(e => e !== bot.entity &&
      e.position.distanceTo(bot.entity.position) <= SEARCH_RADIUS &&
      ((e.type === 'player' && String(e.username).toLowerCase() === wanted) ||
       (e.type !== 'player' && String(e.name).toLowerCase() === wanted)))
    if (!entity && bot.players[target]) entity = await awaitPlayerEntity(ctx, target)
    if (!entity) throw new SkillError(`no ${target} within ${SEARCH_RADIUS} blocks`)
    const weapon = WEAPONS.map(n => bot.inventory.items().find(i => i.name === n)).find(Boolean)
    if (weapon && (!bot.heldItem || bot.heldItem.name !== weapon.name)) await bot.equip(weapon, 'hand')
    bot.pathfinder.setMovements(movementsFor(bot))
    bot.pathfinder.setGoal(new goals.GoalFollow(entity, 2), true)
    let hits = 0
    let dead = false
    // Servers that never destroy the entity still send "entity dead" (status 3).
    const onDead = (e) => { if (e.id === entity.id) dead = true }
    bot.on('entityDead', onDead)
    try {
      while (!dead && entity.isValid && bot.entities[entity.id]) {
        ctx.check()
        const d = entity.position.distanceTo(bot.entity.position)
        if (d > SEARCH_RADIUS * 1.5) throw new SkillError(`target out of reach: ${target} escaped`)
        if (d <= REACH) {
          await bot.lookAt(entity.position.offset(0, (entity.height || 1) * 0.8, 0), true)
          bot.attack(entity)
          hits++
          ctx.progress(0, `hit ${target} ${hits} times`)
        }
        await sleep(HIT_INTERVAL_MS, ctx.signal)
      }
    } finally {
      bot.removeListener('entityDead', onDead)
      try { bot.pathfinder.setGoal(null) } catch (e) {}
    }
    return { detail: { target, hits, weapon: weapon ? weapon.name : null } }
  }
}
