'use strict'
// give: hand N of an item to a player. Walks to point-blank range, looks at them and
// tosses; the hand-over counts only when the server announces that the receiver
// picked the stack up (its `collect` packet names the collector and the count), so
// success means it arrived. A stack nobody took is picked up again and handed over
// again, up to MAX_TRIES times; otherwise a typed failure (outcome.failure):
// target_not_found, target_out_of_reach, item_missing, server_refused, taken_by_other,
// receiver_not_picking_up. The embedded server gives a stack thrown at a player close
// by to that player (bots/server/plugins/items.js); on a vanilla server the stack
// lands at the receiver's feet and is picked up after vanilla's 2 s delay.
const { gotoGoal, walkTo, goals, awaitPlayerEntity } = require('../lib/move')
const { GoalPickup, ItemWatch } = require('../lib/items')
const { SkillError, SkillAborted, resolveNames, inventoryCounts, vec } = require('../lib/util')

const HAND_RANGE = 2 // blocks between giver and receiver when tossing
const MAX_TRIES = 3
const TOSSED_MS = 3000 // the server confirms the toss
const RECEIVE_MS = 4000 // embedded server: 250 ms; vanilla: 2 s pickup delay + the flight
const RETRIEVE_MS = 8000 // the thrower may take a stack back after 5 s (embedded) / 2 s (vanilla)

module.exports = {
  args: {
    player: { type: 'string' },
    item: { type: 'string' },
    count: { type: 'int', default: 1 }
  },
  async run (ctx, { player, item, count }) {
    const bot = ctx.bot
    const have = inventoryCounts(bot)
    const name = resolveNames(bot.registry.itemsByName, item).find(n => (have[n] || 0) > 0)
    if (!name) throw new SkillError(`no ${item} in inventory`, {}, 'item_missing')
    if (have[name] < count) throw new SkillError(`not enough ${name}: have ${have[name]}, want to give ${count}`, {}, 'item_missing')
    const itemId = bot.registry.itemsByName[name].id
    let received = 0
    let tries = 0
    let target = null
    let landed = null
    const detail = () => ({
      item: name,
      count,
      to: player,
      received: received >= count,
      received_count: received,
      tries,
      landed_at: landed,
      giver_at: vec(bot.entity.position),
      receiver_at: target ? vec(target.position) : null
    })
    const fail = (reason, kind) => new SkillError(reason, detail(), kind)

    while (received < count) {
      if (tries >= MAX_TRIES) {
        throw fail(`${player} did not pick up the ${name} after ${tries} tries (inventory full?)`, 'receiver_not_picking_up')
      }
      tries++
      target = await awaitPlayerEntity(ctx, player)
      if (!target) throw fail(`player ${player} is not in sight`, 'target_not_found')
      if (bot.entity.position.distanceTo(target.position) > HAND_RANGE + 0.5) {
        ctx.progress(received / count, `walking to ${player}`)
        const p = target.position
        try {
          await walkTo(ctx, p, `player ${player}`, new goals.GoalNear(p.x, p.y, p.z, HAND_RANGE))
        } catch (err) {
          if (err instanceof SkillAborted) throw err
          const walk = err instanceof SkillError ? err.detail.walk : null
          const left = walk ? `: ${walk.blocks_left} blocks left` : ''
          throw new SkillError(`target out of reach: no path to ${player}${left}`, { ...detail(), ...(walk ? { walk } : {}) }, 'target_out_of_reach')
        }
        ctx.check()
        if (!target.isValid) continue
      }
      const left = count - received
      let got = 0
      try {
        got = await handOver(ctx, target, name, itemId, left, (at) => { landed = at })
      } catch (err) {
        if (!(err instanceof SkillError)) throw err
        received += err.detail.received_count || 0
        throw fail(err.reason, err.kind)
      }
      received += got
      ctx.progress(received / count, `handed ${received} of ${count} ${name} to ${player}`)
    }
    landed = null
    return { detail: detail() }
  }
}

/** One toss of ``n`` items at ``target``: how many the target picked up; takes back what nobody did. */
async function handOver (ctx, target, name, itemId, n, setLanded) {
  const bot = ctx.bot
  await bot.lookAt(target.position.offset(0, 0.9, 0), true)
  await bot.waitForTicks(2) // the server throws where it last saw us look
  const eyes = () => bot.entity.position.offset(0, 1.62, 0)
  const watch = new ItemWatch(bot, eyes, 3)
  try {
    const before = inventoryCounts(bot)[name] || 0
    await bot.toss(itemId, null, n)
    const tossed = await watch.until(() => (inventoryCounts(bot)[name] || 0) <= before - n, TOSSED_MS, ctx.signal)
    if (!tossed) throw new SkillError(`tossing ${name} failed: the server kept the items`, {}, 'server_refused')
    await watch.until(() => watch.countBy(target.id) >= n, RECEIVE_MS, ctx.signal)
    const got = watch.countBy(target.id)
    if (got >= n) return got
    const others = watch.takenByOthers([target.id, bot.entity.id])
    if (others.length > 0) {
      const who = Object.values(bot.entities).find(e => e.id === others[0].collector)
      const by = who ? (who.username || who.name) : `entity ${others[0].collector}`
      throw new SkillError(`${by} took the ${name} meant for ${target.username}`, { received_count: got }, 'taken_by_other')
    }
    // not taken: fetch it back for the next try
    const lying = watch.lying()
    if (lying.length > 0) setLanded(vec(lying[0].position))
    for (const e of lying) {
      if (!e.isValid) continue
      ctx.progress(0.5, `picking up the ${name} nobody took`)
      try {
        await gotoGoal(ctx, new GoalPickup(e.position), `the ${name} on the ground`)
      } catch (err) {
        if (err instanceof SkillAborted) throw err
      }
      await watch.until(() => watch.collected.has(e.id) || watch.gone.has(e.id), RETRIEVE_MS, ctx.signal)
    }
    const lost = n - got - (watch.countBy(bot.entity.id))
    if (lost > 0 && watch.countBy(target.id) === got) {
      throw new SkillError(`${target.username} did not pick up the ${name}, and it could not be taken back`, { received_count: got }, 'receiver_not_picking_up')
    }
    return watch.countBy(target.id)
  } finally {
    watch.close()
  }
}
