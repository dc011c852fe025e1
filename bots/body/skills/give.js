'use strict'
// give: walk to a player and toss them N of an item. Success means tossed towards them;
// detail.received says whether they picked it up within a few seconds (else detail.landed_at).
const { gotoGoal, goals, awaitPlayerEntity } = require('../lib/move')
const { SkillError, resolveNames, inventoryCounts, sleep, vec } = require('../lib/util')

const RECEIVE_WAIT_MS = 4000

module.exports = {
  name: 'give',
  args: {
    player: { type: 'string' },
    item: { type: 'string' },
    count: { type: 'int', default: 1 }
  },
  async run (ctx, { player, item, count }) {
    const bot = ctx.bot
    const have = inventoryCounts(bot)
    const name = resolveNames(bot.registry.itemsByName, item).find(n => (have[n] || 0) > 0)
    if (!name) throw new SkillError(`no ${item} in inventory`)
    if (have[name] < count) throw new SkillError(`not enough ${name}: have ${have[name]}, want to give ${count}`)
    const target = await awaitPlayerEntity(ctx, player)
    if (!target) throw new SkillError(`player ${player} is not in sight`)
    ctx.progress(0.1, `walking to ${player}`)
    const p = target.position
    await gotoGoal(ctx, new goals.GoalNear(p.x, p.y, p.z, 2), `player ${player}`)
    ctx.check()
    await bot.lookAt(target.position.offset(0, target.height || 1.6, 0), true)
    await bot.waitForTicks(2) // let the server learn where we look: it throws that way
    // Watch the thrown stack: did the receiver pick it up, and where did it land?
    let thrown = null
    let received = false
    const onSpawn = (e) => { if (!thrown && e.name === 'item' && e.position.distanceTo(bot.entity.position) < 3) thrown = e }
    const onCollect = (collector, collected) => {
      if (thrown && collected.id === thrown.id && collector.username === player) received = true
    }
    bot.on('entitySpawn', onSpawn)
    bot.on('playerCollect', onCollect)
    try {
      await bot.toss(bot.registry.itemsByName[name].id, null, count)
      // The server may confirm the click after a resync: wait until the items are gone.
      const tossedBy = Date.now() + 3000
      while ((inventoryCounts(bot)[name] || 0) > have[name] - count && Date.now() < tossedBy) await sleep(100, ctx.signal)
      if ((inventoryCounts(bot)[name] || 0) > have[name] - count) throw new SkillError(`tossing ${name} failed: the server kept the items`)
      ctx.progress(0.8, `tossed ${count} ${name} to ${player}`)
      const deadline = Date.now() + RECEIVE_WAIT_MS
      while (!received && Date.now() < deadline) await sleep(100, ctx.signal)
    } finally {
      bot.removeListener('entitySpawn', onSpawn)
      bot.removeListener('playerCollect', onCollect)
    }
    const landed = thrown && thrown.isValid ? vec(thrown.position) : null
    return {
      detail: {
        item: name, count, to: player, received, landed_at: received ? null : landed,
        giver_at: vec(bot.entity.position), receiver_at: vec(target.position)
      }
    }
  }
}
