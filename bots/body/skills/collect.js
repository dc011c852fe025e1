'use strict'
// collect: mine N blocks of a kind (or family, e.g. "log") with the best tool and pick up the drops.
// What counts is what arrived in the inventory (stone -> cobblestone). After each dig the body
// waits for the drops to appear, walks until they are within pickup range and waits for the
// pickup (events with timeouts, no fixed sleeps). A trunk is dug upwards from where the body
// stands, as far as a player reaches (REACH_HERE), without waiting for each log's drop when
// the foot of the trunk is within pickup range: the drops fall down the opened trunk beside
// the body and are picked up while it digs the next log (checked, and fetched if needed, once
// the body leaves that spot). So a tree is walked to a spot beside its trunk (GoalBesideTrunk):
// from there every log within reach is dug without a step and no drop is waited for. Bodies
// side by side share the nearest trees out by name (placeInGroup); one that finds another
// player at its tree whose name sorts first goes to another tree (rivalAt). Walks to a target
// or a drop may break leaves (a short tree's canopy walls its trunk in at head height),
// nothing else. Fewer than asked is a failure that says how
// many arrived (detail.collected) and why (outcome.failure): target_not_found,
// target_out_of_reach, timed_out (planning gave up), tool_missing, block_gone,
// taken_by_other (another body picked the drops up), drops_not_reached.
const { gotoGoal, goals, GoalReachBlock, GoalBesideTrunk, spotInReach, timed, digLanded } = require('../lib/move')
const { GoalPickup, ItemWatch, inPickupRange } = require('../lib/items')
const { SkillError, SkillAborted, resolveNames, vec, inventoryCounts } = require('../lib/util')

const SEARCH_RADIUS = 64
const CANDIDATE_THINK_MS = 8000
const DROP_THINK_MS = 4000
const BESIDE_THINK_MS = 3000 // a spot beside a trunk: then any spot within reach
const BESIDE_STANDSTILL_MS = 4000
const MAX_UNREACHABLE = 6
const MAX_EXTRA_DIGS = 3 // digs beyond `count` whose drops did not arrive before giving up
const MAX_GONE = 6 // targets taken by someone else before we dug them
const MAX_TAKEN = 6 // digs whose drops someone else picked up (bodies working side by side)
const MAX_CEDED = 16 // places left to other bodies (their patch, their tree)
const DROP_SPAWN_MS = 1500
const SETTLE_MS = 1200 // a drop lands and is picked up where it fell (pickup delay 0.5 s)
const PICKUP_MS = 2500 // per stack, once within range of where it lies
const DROP_AT_R = 0.75 // a block's drops appear at its centre (the server's rule)
const FETCH_BUDGET_MS = 4000 // per stack: waiting for and walking to the drops of a spot
const REACH_HERE = 4.5 // a survival player's reach from the eyes (vanilla servers allow 6)
const EYE = 1.62

// blocks that drop what was asked for under another name (what a player digs for it)
const DROPPED_BY = { dirt: ['grass_block'], cobblestone: ['stone'] }

const SIDES = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

function harvestToolNames (bot, block) {
  if (!block.harvestTools) return []
  return Object.keys(block.harvestTools).map(id => bot.registry.items[id] && bot.registry.items[id].name).filter(Boolean)
}

/** Whether a face of the block at ``p`` is open to the air (it can be seen and dug). */
function isOpen (bot, p) {
  return SIDES.some(([x, y, z]) => {
    const b = bot.lightBlockAt(p.offset(x, y, z))
    return b && b.boundingBox === 'empty'
  })
}

const DIRT_LIKE = new Set(['dirt', 'grass_block', 'podzol', 'coarse_dirt', 'mycelium'])

/**
 * A log of a tree, not of a building: its column of logs stands on soil (or on air, once
 * its lowest log was taken) and has leaves at the top. The town hall's corner posts stand
 * on planks under a plank roof, so they are never a target.
 */
/**
 * The y of a tree trunk's foot (the lowest block of its column above the soil: its lowest
 * log, or air once that was dug), or null when ``p`` is not a log on soil within 12 blocks.
 */
function trunkFoot (bot, p) {
  let y = p.y
  for (let i = 0; i < 12; i++) {
    const below = bot.lightBlockAt(p.offset(0, y - 1 - p.y, 0))
    if (!below) return null
    if (DIRT_LIKE.has(below.name)) return y
    if (!(below.name.endsWith('_log') || below.boundingBox === 'empty')) return null
    y--
  }
  return null
}

function isTreeLog (bot, p, name) {
  if (!name.endsWith('_log')) return true
  const isLog = (q) => { const b = bot.lightBlockAt(q); return b && b.name.endsWith('_log') }
  let bottom = p
  for (let i = 0; i < 12 && isLog(bottom.offset(0, -1, 0)); i++) bottom = bottom.offset(0, -1, 0)
  const below = bot.lightBlockAt(bottom.offset(0, -1, 0))
  if (!below || !(DIRT_LIKE.has(below.name) || below.boundingBox === 'empty')) return false
  let top = p
  for (let i = 0; i < 12 && isLog(top.offset(0, 1, 0)); i++) top = top.offset(0, 1, 0)
  const leaves = (q) => { const b = bot.lightBlockAt(q); return b && b.name.endsWith('_leaves') }
  return [[0, 1, 0], [0, 2, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1]].some(([x, y, z]) => leaves(top.offset(x, y, z)))
}

/**
 * Whether another player is seen nearer to the block than this body (within OTHERS_R of
 * it): it is likely the one to dig it, so such blocks rank after the others instead of
 * both racing for one tree. Only what the body sees (player entities in view), nothing
 * shared between bodies.
 */
const OTHERS_R = 8
const CEDE_R = 3 // blocks this near a body that took our drops are left to it
const OTHERS_RANK = 40
// clearly nearer: bodies side by side see each other a few hundredths of a block off, and
// each would cede the nearest trees to the others (placeInGroup shares those out)
const NEARER_BY = 1

/** The other players this body sees (entities in view with a position). */
function othersSeen (bot) {
  return Object.values(bot.entities || {}).filter(e => e !== bot.entity && e.type === 'player' &&
    e.username && e.username !== bot.username && e.position)
}

/** Whether ``p``'s column is within CEDE_R of one of ``places`` (x, z) left to others. */
function nearAny (p, places) {
  return places.some(a => Math.hypot(p.x + 0.5 - a.x, p.z + 0.5 - a.z) < CEDE_R)
}

function nearerToSomeoneSeen (bot, p) {
  const centre = p.offset(0.5, 0.5, 0.5)
  const mine = bot.entity.position.distanceTo(centre)
  return othersSeen(bot).some(e => {
    const d = e.position.distanceTo(centre)
    return d <= OTHERS_R && d < mine - NEARER_BY
  })
}

/**
 * Another player seen beside the trunk of the log at ``p`` (within RIVAL_R of its column,
 * about level with its foot) whose name sorts before this body's: two bodies that came to
 * one tree at once (each saw a different group on the way: one had not seen every body
 * join) would dig the same logs, and the drops go to one of them. The one whose name sorts
 * later leaves the tree to the other, a rule both apply alike from what they see.
 */
const RIVAL_R = 1.8

function rivalAt (bot, p) {
  const me = bot.entity.position
  return othersSeen(bot).some(e => e.username < bot.username && Math.abs(e.position.y - me.y) < 3 &&
    Math.hypot(e.position.x - (p.x + 0.5), e.position.z - (p.z + 0.5)) <= RIVAL_R)
}

/** Whether the block at ``p`` can be dug from where the body stands, without a step. */
function reachableHere (bot, p) {
  return bot.entity.position.offset(0, EYE, 0).distanceTo(p.offset(0.5, 0.5, 0.5)) <= REACH_HERE
}

/**
 * Bodies that stand side by side (other players seen within GROUP_R) split the nearest
 * columns among them by a rule each applies on its own, from what it sees: ordered by
 * name, the i-th of the group takes the i-th nearest column (a tree's trunk), as players
 * who arrive together each take a tree. Only for the first block of a collect; later blocks
 * follow the trunk and the nearest rule. Null when no other player stands that near.
 */
const GROUP_R = 2.5

function placeInGroup (bot) {
  const me = bot.entity.position
  const others = othersSeen(bot).filter(e => e.position.distanceTo(me) <= GROUP_R).map(e => e.username)
  if (others.length === 0) return null
  const all = [...new Set([...others, bot.username])].sort()
  return { index: all.indexOf(bot.username), size: all.length }
}

/** ``ranked`` (blocks, best first) with the blocks of this body's column of its group first. */
function ownColumnFirst (bot, ranked) {
  const group = placeInGroup(bot)
  if (group === null) return ranked
  const key = (p) => `${p.x},${p.z}`
  const columns = []
  for (const p of ranked) {
    if (!columns.includes(key(p))) columns.push(key(p))
    if (columns.length >= group.size) break
  }
  if (columns.length === 0) return ranked
  const mine = columns[group.index % columns.length]
  return [...ranked.filter(p => key(p) === mine), ...ranked.filter(p => key(p) !== mine)]
}

/**
 * Only blocks the body can see: a face open to the air (a buried ore is not known until
 * digging opens it; nothing is dug through the ground to reach an unseen block). Those not
 * below the feet (digging down leaves pits to fall into) nor out of reach above (the top
 * of a tree) first, then nearest; the blocks above the one dug last first, highest reach
 * included when they can be dug from where the body stands (a trunk is dug bottom-up, which
 * opens it so its drops fall down beside the body). Never further down the column
 * dug last: that digs a staircase down into the ground (15 x 3 stone at the hills went from
 * y 83 to 69, and the ten-in-a-row gathering test lost stone drops with it; without it the
 * body stays within a block of the surface). Never the block under the body or a log of a
 * building; a block another player is seen nearer to comes after the others.
 */
function candidates (bot, ids, skip, column = null, avoid = []) {
  const open = (p) => isOpen(bot, p)
  const me = bot.entity.position
  const feet = Math.floor(me.y + 0.01)
  const under = (p) => p.y === feet - 1 && Math.abs(p.x + 0.5 - me.x) < 0.8 && Math.abs(p.z + 0.5 - me.z) < 0.8
  const above = (p) => column !== null && p.x === column.x && p.z === column.z && p.y > column.y
  const rank = (p) => {
    const others = nearerToSomeoneSeen(bot, p) ? OTHERS_RANK : 0
    // the trunk, from here (unless someone seen is nearer to it: the drops would go to them)
    if (above(p) && reachableHere(bot, p) && others === 0) return -60 + (p.y - column.y)
    return (above(p) ? -30 : 0) + others + (p.y < feet ? 8 : 0) + Math.max(0, p.y - feet) * 2 +
      (p.y > feet + 2 ? 24 + 8 * (p.y - feet) : 0) + p.distanceTo(me)
  }
  const ranked = bot.findBlocks({ matching: ids, maxDistance: SEARCH_RADIUS, count: 256 })
    .filter(p => !skip.has(p.toString()) && !under(p) && open(p) && !nearAny(p, avoid))
    .filter(p => { const b = bot.lightBlockAt(p); return b && isTreeLog(bot, p, b.name) })
    .map(p => ({ p, rank: rank(p) }))
    .sort((a, b) => a.rank - b.rank)
    .map(x => x.p)
  return column === null ? ownColumnFirst(bot, ranked) : ranked
}

/**
 * Walk into pickup range of every stack ``watch`` saw and wait for each pickup. A stack is
 * first given SETTLE_MS to land (most are picked up where they fall); one still lying there
 * is walked to where it lies now, up to 3 times (it may still be rolling).
 */
async function pickUpDrops (ctx, watch, say) {
  const bot = ctx.bot
  const taken = (e) => () => watch.collected.has(e.id) || watch.gone.has(e.id)
  const stacks = [...watch.spawned.values()]
  const deadline = Date.now() + FETCH_BUDGET_MS * Math.max(1, stacks.length)
  for (const [i, e] of stacks.entries()) {
    // a stack that appeared a while ago (an earlier log of the trunk) has landed already
    const landing = Math.max(0, SETTLE_MS - (Date.now() - (watch.bornAt.get(e.id) || 0)))
    if (await watch.until(taken(e), landing, ctx.signal)) continue
    say(`picking up drops (${i + 1} of ${stacks.length})`)
    for (let round = 0; round < 3 && !taken(e)() && e.isValid && Date.now() < deadline; round++) {
      if (!inPickupRange(bot.entity.position, e.position)) {
        // near it first; then onto the block it lies in (a hole, or below a half block we stand on)
        const p = e.position
        const goal = round === 0 ? new GoalPickup(p) : new goals.GoalBlock(Math.floor(p.x), Math.floor(p.y + 0.05), Math.floor(p.z))
        try {
          await gotoGoal(ctx, goal, 'the dropped item', { leaves: true, thinkMs: DROP_THINK_MS })
        } catch (err) {
          if (err instanceof SkillAborted) throw err
          if (round > 0) break // out of reach
        }
      }
      await watch.until(taken(e), Math.max(0, Math.min(PICKUP_MS, deadline - Date.now())), ctx.signal)
    }
  }
}

module.exports = {
  args: {
    block: { type: 'string' },
    count: { type: 'int', default: 1 }
  },
  // the choice of targets, for the unit tests (tests/bodies/test_collect_targets.py)
  candidates,
  isTreeLog,
  trunkFoot,
  rivalAt,
  reachableHere,
  async run (ctx, { block, count }) {
    const bot = ctx.bot
    const asked = resolveNames(bot.registry.blocksByName, block)
    const names = [...asked, ...asked.flatMap(n => DROPPED_BY[n] || [])]
    if (names.length === 0) throw new SkillError(`unknown block "${block}"`, {}, 'target_not_found')
    const ids = names.map(n => bot.registry.blocksByName[n].id)
    const label = asked.length === 1 ? asked[0] : block
    const unreachable = new Set()
    const ceded = [] // where the bodies that took our drops stood: their patch now
    // what counts: the item each block is dug for (stone -> cobblestone, wheat -> wheat, not
    // its seeds; not a sapling from leaves broken on the way)
    const wanted = new Set(names.map(n => {
      const loot = (bot.registry.blockLoot?.[n]?.drops || []).filter(d => !d.silkTouch).map(d => d.item)
      return loot.length === 0 || loot.includes(n) ? n : loot[0]
    }))
    const before = inventoryCounts(bot)
    const gained = () => {
      const now = inventoryCounts(bot)
      return [...wanted].reduce((sum, n) => sum + Math.max(0, (now[n] || 0) - (before[n] || 0)), 0)
    }
    let dug = 0
    let missed = 0 // digs whose drops did not reach the inventory
    let taken = 0 // digs whose drops were all picked up by someone else (not a miss: we could reach them)
    let gone = 0
    let lastDug = null // the block dug last: a trunk is dug on (upwards) before the next tree
    let starved = 0 // candidates given up because planning ran out of time, not for want of a path
    let stalled = 0 // candidates given up because the walk there stopped moving
    let unseen = 0 // candidates left unplanned: no place to stand within reach sees them
    const misses = [] // where a dig's drops did not arrive: the block, the body, the stacks seen
    const short = (why, kind) => {
      const c = gained()
      const head = c > 0 ? `collected only ${c} of ${count} ${label}: ` : ''
      const out = [...unreachable].slice(0, 8)
      return new SkillError(head + why, { collected: c, wanted: count, dug, drops_missed: missed, drops_taken: taken, misses, unreachable: out, body: vec(bot.entity.position) }, kind)
    }
    let stand = null // digs from this spot whose drops are still falling: { watch, had, digs, at }
    try {
      while (gained() < count) {
        ctx.check()
        if (missed > MAX_EXTRA_DIGS) throw short(`the drops of ${missed} dug blocks did not reach the inventory`, 'drops_not_reached')
        if (gone >= MAX_GONE) throw short(`${gone} ${label} blocks were taken by others first`, 'block_gone')
        if (taken >= MAX_TAKEN) throw short(`the drops of ${taken} dug blocks were picked up by others first`, 'taken_by_other')
        const next = lastDug && trunkNext(lastDug)
        const found = next ? [next] : candidates(bot, ids, unreachable, lastDug, ceded)
        if (found.length === 0) {
          if (stand) { await settle(); continue } // what is still falling may be enough
          if (unreachable.size > 0) throw short(`no path to any reachable ${label} (${unreachable.size} out of reach)`, 'target_out_of_reach')
          if (ceded.length > 0) throw short(`the ${label} in sight is being dug by others who stand nearer`, 'taken_by_other')
          throw short(gained() > 0 ? `no more in sight within ${SEARCH_RADIUS} blocks` : `no ${label} in sight within ${SEARCH_RADIUS} blocks`, 'target_not_found')
        }
        const pos = found[0]
        if (await digOne(pos)) lastDug = pos
        ctx.progress(gained() / count, `collected ${gained()} of ${count} ${label}`)
      }
      await settle() // drops of the last digs that arrived already: close their watch
    } finally {
      if (stand) stand.watch.close()
    }
    return { detail: { collected: gained(), wanted: count, dug, drops_missed: missed, drops_taken: taken, misses, last: vec(bot.entity.position) } }

    /**
     * The block above ``last`` when the column goes on there and it is dug from where the
     * body stands: what ``candidates`` ranks first then, found without a scan of the world
     * (a scan of 64 blocks around took ~0.1 s per log in a forest).
     */
    function trunkNext (last) {
      const p = last.offset(0, 1, 0)
      const b = bot.blockAt(p)
      if (!b || !ids.includes(b.type) || unreachable.has(p.toString())) return null
      if (!reachableHere(bot, p) || nearerToSomeoneSeen(bot, p) || !isTreeLog(bot, p, b.name)) return null
      return cedeTree(p, b.name) || nearAny(p, ceded) ? null : p
    }

    /** Whether the tree of the log at ``p`` is left to a rival beside it (then it is avoided). */
    function cedeTree (p, name) {
      if (!name.endsWith('_log') || !rivalAt(bot, p)) return false
      if (nearAny(p, ceded)) return true // left already (the trunk is looked at twice per log)
      // a tree not avoided would be chosen again at once, and again (without a wait)
      if (ceded.length >= MAX_CEDED) throw short(`${ceded.length} trees were left to others at them first`, 'taken_by_other')
      ceded.push({ x: p.x + 0.5, z: p.z + 0.5 })
      return true
    }

    /** Whether the trunk above ``last`` goes on within reach from here (dug without a step). */
    function trunkHere (p, last) {
      return last !== null && p.x === last.x && p.z === last.z && p.y > last.y && reachableHere(bot, p)
    }

    /**
     * Wait for the drops of the digs made from this spot and walk to those still lying; the
     * digs none of whose drops arrived count as missed (or taken, when another body picked
     * them up).
     */
    async function settle () {
      if (!stand) return
      const s = stand
      stand = null
      try {
        await timed(bot, 'drops_ms', (async () => {
          await s.watch.until(() => gained() >= s.had + s.digs || s.watch.spawned.size >= s.digs, DROP_SPAWN_MS, ctx.signal)
          await pickUpDrops(ctx, s.watch, (d) => ctx.progress(gained() / count, d))
        })())
        const lost = s.digs - (gained() - s.had) // every dig drops at least one item
        if (lost <= 0) return
        const byOthers = s.watch.lying().length === 0 ? s.watch.takenByOthers([bot.entity.id]).length : 0
        const t = Math.min(lost, byOthers)
        taken += t // picked up by another body that stood nearer: dig elsewhere, away from it
        for (const { collector } of t > 0 ? s.watch.takenByOthers([bot.entity.id]) : []) {
          const e = bot.entities[collector]
          if (e && e.position && ceded.length < MAX_CEDED) ceded.push(e.position.clone()) // their patch now
        }
        missed += lost - t
        if (lost > t && misses.length < 4) {
          misses.push({ block: s.name, at: vec(s.at), body: vec(bot.entity.position), drops: [...s.watch.spawned.values()].map(e => vec(e.position)) })
        }
      } finally {
        s.watch.close()
      }
    }

    /** Whether the body got beside the trunk of the log at ``pos`` (false: not a tree, or no way found soon). */
    async function besideTrunk (pos, name) {
      if (!name.endsWith('_log')) return false
      const footY = trunkFoot(bot, pos)
      if (footY === null) return false
      try {
        await gotoGoal(ctx, new GoalBesideTrunk(pos, footY, REACH_HERE), `beside the ${name} at ${pos}`,
          { leaves: true, thinkMs: BESIDE_THINK_MS, standstillMs: BESIDE_STANDSTILL_MS })
        return true
      } catch (err) {
        if (err instanceof SkillAborted) throw err
        return false
      }
    }

    /** Walk to the block at ``pos``, dig it and pick up its drops; whether it was dug. */
    async function digOne (pos) {
      const target = bot.blockAt(pos)
      if (!target) { unreachable.add(pos.toString()); return false }
      const tools = harvestToolNames(bot, target)
      if (tools.length > 0 && !bot.inventory.items().some(i => target.canHarvest(i.type))) {
        throw short(`missing tool: ${target.name} needs one of ${tools.slice(0, 4).join(', ')}`, 'tool_missing')
      }
      if (!trunkHere(pos, lastDug)) {
        await settle() // leaving this spot: the drops of what was dug here first
        ctx.progress(gained() / count, `walking to ${target.name} at ${pos}`)
        try {
          // a tree: beside its trunk first (every log dug from there, the drops falling at
          // the feet); where no such spot is found soon, any spot within reach
          if (!(await besideTrunk(pos, target.name))) {
            // a crop has no collision box to look at: stand near it (targets are never buried)
            const goal = target.boundingBox === 'empty'
              ? new goals.GoalNear(pos.x, pos.y, pos.z, 2)
              : new GoalReachBlock(pos, bot.world, 3)
            // no place to stand sees it: no planning (it would use the whole budget)
            if (goal instanceof GoalReachBlock && !spotInReach(bot, goal)) {
              unreachable.add(pos.toString())
              unseen++
              return false
            }
            // one candidate gets a bounded planning budget: the next one may be easier
            await gotoGoal(ctx, goal, `${target.name} at ${pos}`, { leaves: true, thinkMs: CANDIDATE_THINK_MS })
          }
        } catch (err) {
          if (err instanceof SkillAborted) throw err
          if (err instanceof SkillError && err.kind === 'block_gone') { gone++; return false } // dug by someone else on the way
          unreachable.add(pos.toString())
          if (err instanceof SkillError && err.kind === 'timed_out') starved++
          if (err instanceof SkillError && err.kind === 'stuck') stalled++
          const tried = unreachable.size - unseen // planned for and given up
          if (tried >= MAX_UNREACHABLE) {
            if (starved * 2 >= tried) throw short(`path planning to ${label} gave up for ${starved} of ${tried} candidates (too far or the machine too busy)`, 'timed_out')
            if (stalled * 2 >= tried) throw short(`the walk to ${label} stalled for ${stalled} of ${tried} candidates`, 'stuck')
            throw short(`no path to ${label}: ${tried} candidates out of reach`, 'target_out_of_reach')
          }
          return false
        }
      }
      ctx.check()
      if (!trunkHere(pos, lastDug) && cedeTree(pos, target.name)) return false
      await bot.tool.equipForBlock(target, { requireHarvest: tools.length > 0 })
      ctx.progress(gained() / count, `digging ${target.name} at ${pos}`)
      const fresh = bot.blockAt(pos)
      if (!fresh || !ids.includes(fresh.type)) { gone++; return false } // someone else took it
      if (!bot.canDigBlock(fresh)) { unreachable.add(pos.toString()); return false }
      if (!stand) {
        // drops appear at the centre of the block dug (then fly): only those are ours, not the
        // stacks of a body digging the next log of the same tree
        const centres = []
        stand = { watch: new ItemWatch(bot, () => centres, DROP_AT_R), centres, had: gained(), digs: 0, at: pos, name: fresh.name }
      }
      stand.centres.push(pos.offset(0.5, 0.5, 0.5))
      await timed(bot, 'dig_ms', digLanded(ctx, fresh))
      ctx.check()
      dug++
      stand.digs++
      // the trunk goes on above within reach and more is needed: dig on while this drop falls
      const next = trunkNext(pos)
      const more = Math.max(gained(), stand.had + stand.digs) < count
      // ... when the drops land within pickup range (the foot of the trunk is beside the body)
      const foot = stand.at.offset(0.5, 0, 0.5)
      if (!(more && next && inPickupRange(bot.entity.position, foot))) await settle()
      return true
    }
  }
}
