'use strict'
// Pathfinding helpers: cancellable goto with failure reasons a model can act on.

const { goals, Movements } = require('mineflayer-pathfinder')
const { Vec3 } = require('vec3')
const Move = require('mineflayer-pathfinder/lib/move')
const { SkillError, SkillAborted, sleep, waitForEvent, vec } = require('./util')

const EMPTY_PATH_RETRIES = 3
const PLAN_RETRIES = 2
// Wall-time budget of one A* search. The pathfinder gives A* only `tickTimeout` ms per
// physics tick (50 ms) and measures its `thinkTimeout` in wall time, so the stock 5 s
// allow ~1 s of CPU, and far less when many bodies share a core: long walks failed as
// "no path" although a path existed. 15 s with 10 ms slices is <= 3 s of CPU.
const THINK_MS = 15000

/**
 * Where a body's time goes, summed over its life (the runner reports the difference over a
 * skill as ``detail.timing``): path planning (ms of A* the pathfinder reported, and how many
 * plans), walking (wall ms inside goto, planning included), digging, waiting for drops.
 */
function stats (bot) {
  if (!bot.pianoStats) bot.pianoStats = { plan_ms: 0, plans: 0, nodes: 0, walk_ms: 0, dig_ms: 0, drops_ms: 0, unstuck: 0, searching_at: 0 }
  return bot.pianoStats
}

/** Add the wall time of ``promise`` to ``stats(bot)[key]``; resolves/rejects like it. */
async function timed (bot, key, promise) {
  const t0 = Date.now()
  try {
    return await promise
  } finally {
    stats(bot)[key] += Date.now() - t0
  }
}

// man-made and farmed blocks: a digging walk leaves them alone
const BUILT = /planks|cobblestone|glass|_log$|_wood$|door|fence|gate|stairs|slab|farmland|wheat|carrots|potatoes|beetroots|chest|crafting_table|furnace|bed$|torch|wool|bricks|_path$|water|lava/

/**
 * Stand where a block can be reached and seen: like GoalLookAtBlock, but the reach is
 * measured from the eyes (GoalLookAtBlock measures from the feet to 1.6 above the block,
 * so a log at head height seen past a tree's low leaves was "out of reach" from 2 blocks
 * away, and A* searched until its time ran out).
 */
class GoalReachBlock extends goals.GoalLookAtBlock {
  constructor (pos, world, reach = 4) {
    super(pos, world, { reach: reach + 4 }) // the base's own check and ray length: generous
    this.eyeReach = reach
    this.type = world.getBlock(pos)?.type
  }

  /** False once the block is gone (dug by someone else): the pathfinder then stops. */
  isValid () {
    const now = this.world.getBlock(this.pos)
    return this.type === undefined || !now || now.type === this.type
  }

  isEnd (node) {
    const dx = node.x + 0.5 - (this.pos.x + 0.5)
    const dy = node.y + 1.62 - (this.pos.y + 0.5)
    const dz = node.z + 0.5 - (this.pos.z + 0.5)
    if (dx * dx + dy * dy + dz * dz > this.eyeReach * this.eyeReach) return false
    return super.isEnd(node)
  }
}

/**
 * Whether any place to stand within ``goal``'s reach (a GoalReachBlock) sees its block: feet
 * and head in air (or leaves, which a walk to a target may break) above something to stand
 * on, or in water or on a ladder. None: A* would search its whole budget for nothing, the
 * block's open face looking into a gap no body fits (traced at the hills: one stone cost
 * each of 4 rounds of 5 bodies 8 s of planning and made the step's p95 24.6 s). Errs
 * towards "yes": a place it cannot judge counts as one.
 */
function spotInReach (bot, goal) {
  if (goal.isEnd(bot.entity.position.floored())) return true
  const r = Math.ceil(goal.eyeReach)
  // (a half block counts as a place to stand in: a body stands on a slab or snow layer)
  const low = (b) => b.shapes && b.shapes.length > 0 && b.shapes.every(shape => shape[4] <= 0.5)
  const passable = (b) => !b || b.boundingBox === 'empty' || b.name.endsWith('_leaves') || low(b)
  const carries = (feet, below) => !below || below.boundingBox === 'block' || /water|ladder|vine|scaffolding/.test(feet ? feet.name : '')
  for (let dy = -r - 2; dy <= r; dy++) {
    for (let dx = -r; dx <= r; dx++) {
      for (let dz = -r; dz <= r; dz++) {
        const node = goal.pos.offset(dx, dy, dz)
        const feet = bot.blockAt(node)
        if (!passable(feet) || !passable(bot.blockAt(node.offset(0, 1, 0)))) continue
        if (!carries(feet, bot.blockAt(node.offset(0, -1, 0)))) continue
        if (goal.isEnd(node)) return true
      }
    }
  }
  return false
}

/**
 * Stand beside a tree's trunk: on a block next to its column (a side, not a corner), the
 * feet within a block of the trunk's foot, the log within a player's reach of the eyes.
 * From there a short trunk is dug upwards without a step, and its drops fall down the
 * opened trunk within pickup range (vanilla's: the player's box grown by a block
 * sideways), so no drop is waited for or fetched. Leaves in the
 * way at head height are broken by the walk (``movementsFor(bot, {leaves: true})``); the
 * server checks only the reach of a dig, so the face is not ray-cast.
 */
class GoalBesideTrunk extends goals.Goal {
  constructor (pos, footY, reach = 4.5) {
    super()
    this.pos = pos
    this.footY = footY
    this.reach = reach
  }

  heuristic (node) {
    const dx = node.x - this.pos.x
    const dz = node.z - this.pos.z
    return Math.max(0, Math.sqrt(dx * dx + dz * dz) - 1) + Math.abs(node.y - this.footY)
  }

  isEnd (node) {
    const dx = node.x - this.pos.x
    const dz = node.z - this.pos.z
    if (Math.abs(dx) + Math.abs(dz) !== 1 || Math.abs(node.y - this.footY) > 1) return false
    const dy = node.y + 1.62 - (this.pos.y + 0.5)
    return dx * dx + dy * dy + dz * dz <= this.reach * this.reach
  }
}

/**
 * Movements for this bot (built once per bot and setting: the constructor scans every block
 * state). ``canDig``: through the ground (never what the village is built of, its fields or
 * containers); ``leaves``: through leaves only, as a player breaks them to reach a short
 * tree's trunk or the drops lying under its low canopy (a 4-high oak has leaves from one
 * block above the ground: its trunk and drops are walled in at head height).
 */
function movementsFor (bot, { canDig = false, leaves = false } = {}) {
  if (!bot.pianoMovements) bot.pianoMovements = {}
  const key = canDig ? 'dig' : (leaves ? 'leaves' : 'walk')
  let m = bot.pianoMovements[key]
  if (!m) {
    m = new Movements(bot)
    m.canDig = canDig || leaves
    m.allow1by1towers = false
    m.allowSprinting = true
    m.allowParkour = true
    for (const b of bot.registry.blocksArray) {
      if (canDig ? BUILT.test(b.name) : (leaves && !b.name.endsWith('_leaves'))) m.blocksCantBreak.add(b.id)
    }
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
  bot.pathfinder.thinkTimeout = opts.thinkMs || THINK_MS
  const aborted = new Promise((resolve, reject) => {
    const onAbort = () => reject(new SkillAborted(String(ctx.signal.reason || 'aborted')))
    if (ctx.signal.aborted) onAbort()
    ctx.signal.addEventListener('abort', onAbort, { once: true })
  })
  aborted.catch(() => {})
  const st = stats(bot)
  // r.time is the wall time since that search started (it runs in slices over ticks):
  // count each search once, up to its latest report
  let search = null
  let reported = 0
  const onPlan = (r) => {
    const t = Number(r.time) || 0
    if (r.context !== search || t < reported) { search = r.context; reported = 0; st.plans++ }
    if (r.status !== 'partial') st.nodes += Number(r.visitedNodes) || 0
    if (r.status !== 'partial' && process.env.PIANO_DEBUG_PLANS) require('fs').appendFileSync(process.env.PIANO_DEBUG_PLANS, `${bot.username} ${what} ${r.status} ${Math.round(t)}ms ${r.visitedNodes} nodes ${r.path.length} steps from ${bot.entity.position.floored()} goal ${goal.constructor.name}\n`)
    st.plan_ms += t - reported
    reported = t
    // a search still running is work, not being stuck (the runner's stuck detector reads it)
    if (r.status === 'partial') st.searching_at = Date.now()
  }
  bot.on('path_update', onPlan)
  try {
    await timed(bot, 'walk_ms', walk(ctx, goal, what, aborted, opts.standstillMs))
  } catch (err) {
    // walled in (a pit or tunnel left by digging): dig out through the ground, as a player
    // would; man-made and farmed blocks stay protected (BUILT)
    if (opts.canDig || !(err instanceof SkillError) || err.kind !== 'target_out_of_reach' || !enclosed(bot)) throw err
    bot.pathfinder.setMovements(movementsFor(bot, { canDig: true }))
    await timed(bot, 'walk_ms', walk(ctx, goal, what, aborted, opts.standstillMs))
  } finally {
    bot.removeListener('path_update', onPlan)
  }
}

/**
 * Whether the body is walled in (a pit, quarry or tunnel left by digging): the positions a
 * walk reaches from here form a closed region that never gets ESCAPE_XZ blocks away. A
 * region still growing after ENCLOSED_NODES positions is open ground. (The first version
 * only knew pits of fewer than 8 positions: two explorers who quarried stone around them
 * failed every explore "in 4 directions" for 20 minutes.)
 */
const ESCAPE_XZ = 6
const ENCLOSED_NODES = 400
function enclosed (bot) {
  const m = movementsFor(bot)
  const p = bot.entity.position.floored()
  const start = new Move(p.x, p.y, p.z, 0, 0)
  const seen = new Set([start.hash])
  const queue = [start]
  while (queue.length > 0) {
    if (seen.size >= ENCLOSED_NODES) return false
    for (const n of m.getNeighbors(queue.shift())) {
      if (seen.has(n.hash)) continue
      if (Math.max(Math.abs(n.x - p.x), Math.abs(n.z - p.z)) >= ESCAPE_XZ) return false
      seen.add(n.hash)
      queue.push(n)
    }
  }
  return true
}

// a walk whose body has not moved, searched or dug for this long has stalled (pushing into
// another body, a jump it cannot make): it fails as "stuck" so the skill can try elsewhere,
// before the runner's own stuck detector (20 s) ends the whole skill
const STANDSTILL_MS = 8000

/** A promise that rejects when the body stands still while walking; ``stop()`` when done. */
function standstill (bot, ms = STANDSTILL_MS) {
  let timer = null
  let last = bot.entity.position.clone()
  let movedAt = Date.now()
  const promise = new Promise((resolve, reject) => {
    timer = setInterval(() => {
      const now = Date.now()
      const busy = bot.targetDigBlock || now - stats(bot).searching_at < 1500
      if (busy || bot.entity.position.distanceTo(last) > 0.25) {
        last = bot.entity.position.clone()
        movedAt = now
      } else if (now - movedAt > ms) {
        reject(new SkillError(`stuck: no step for ${ms / 1000} s on the way`, {}, 'stuck'))
      }
    }, 500)
  })
  promise.catch(() => {})
  return { promise, stop: () => clearInterval(timer) }
}

/**
 * Get loose the way a player does when walking into a block corner or edge (a known
 * mineflayer-pathfinder failure: the body presses against the side of a block and never
 * gets up): let go, step back with a jump, a little to one side, land, then plan again
 * from where it stands.
 */
async function unstick (ctx) {
  const bot = ctx.bot
  try { bot.pathfinder.setGoal(null) } catch (e) {}
  bot.clearControlStates()
  const side = ctx.random() < 0.5 ? 'left' : 'right'
  bot.setControlState('back', true)
  bot.setControlState('jump', true)
  bot.setControlState(side, true)
  try {
    await sleep(450, ctx.signal)
  } finally {
    bot.clearControlStates()
  }
  const deadline = Date.now() + 1500
  while (!bot.entity.onGround && !bot.entity.isInWater && Date.now() < deadline) {
    await new Promise(resolve => bot.once('physicsTick', resolve))
  }
}

// standstills a walk gets loose from (step back, plan again) before it fails as "stuck"
const UNSTICK_TRIES = 2

async function walk (ctx, goal, what, aborted, standstillMs = STANDSTILL_MS) {
  const bot = ctx.bot
  // goto() also resolves when the planner returns an empty path without reaching the
  // goal (e.g. planning from a half block such as farmland): retry that a few times.
  const t0 = Date.now()
  let unstuck = 0
  for (let attempt = 1; ; attempt++) {
    const still = standstill(bot, standstillMs)
    try {
      await Promise.race([bot.pathfinder.goto(goal), aborted, still.promise])
    } catch (err) {
      if (err instanceof SkillAborted) throw err
      if (ctx.signal.aborted) throw new SkillAborted(String(ctx.signal.reason || 'aborted'))
      if (err instanceof SkillError && err.kind === 'stuck') {
        if (unstuck < UNSTICK_TRIES) {
          unstuck++
          stats(bot).unstuck++
          still.stop()
          await unstick(ctx)
          attempt--
          continue
        }
        throw new SkillError(`${err.reason} to ${what} (${unstuck} times got loose and planned again)`, { planned_ms: Date.now() - t0 }, 'stuck')
      }
      if (err && err.name === 'NoPath') throw new SkillError(`no path to ${what}`, { planned_ms: Date.now() - t0 }, 'target_out_of_reach')
      if (err && err.name === 'Timeout') {
        // the planner ran out of wall time (A* gets a slice per tick; a busy CPU starves it):
        // not evidence that no path exists. Try again with a fresh search, then say so.
        if (attempt < PLAN_RETRIES) continue
        throw new SkillError(`path planning to ${what} gave up after ${Math.round((Date.now() - t0) / 1000)} s (too far or the machine too busy); try a nearer spot`, { planned_ms: Date.now() - t0 }, 'timed_out')
      }
      if (err && err.name === 'GoalChanged') throw new SkillAborted('goal changed')
      if (err && err.name === 'PathStopped' && !goal.isValid()) throw new SkillError(`${what} is gone`, { planned_ms: Date.now() - t0 }, 'block_gone')
      throw new SkillError(`could not reach ${what}: ${err && err.message}`)
    } finally {
      still.stop()
      try { bot.pathfinder.setGoal(null) } catch (e) {}
    }
    if (goal.isEnd(bot.entity.position.floored())) return
    if (attempt >= EMPTY_PATH_RETRIES) throw new SkillError(`no path to ${what}`)
    await sleep(250 * attempt, ctx.signal)
  }
}

/**
 * Dig ``block`` standing on the ground. A walk often ends in the air (the last step is a
 * jump or a drop) and the dig time is fixed when digging starts: mineflayer counts a body
 * in the air as 5 times slower (3 s for a log by hand became 15-16 s in the wild test).
 * So wait for the landing first (a few physics ticks; at most ``ms``), then dig.
 */
async function digLanded (ctx, block, ms = 1500) {
  const bot = ctx.bot
  const deadline = Date.now() + ms
  while (!bot.entity.onGround && !bot.entity.isInWater && Date.now() < deadline) {
    ctx.check()
    await new Promise(resolve => bot.once('physicsTick', resolve))
  }
  return bot.dig(block, true)
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

// --- far targets: the one way to approach a far point ----------------------------------------

const LEG = 32 // blocks: a long walk goes in legs of this length (A* cost grows fast with distance)
const LEG_RANGE = 6
const LONG = 64 // blocks: a walk shorter than this (to a loaded target) is planned in one search
const MAX_LEGS = 12
const CHUNK_WAIT_MS = 3000 // a target's chunk the server is about to send (nearest first)
// a skill's target farther than its legs go fails at once (a cap of 128 turned deposits from
// homes 130-350 blocks away into failures before any step)
const APPROACH_MAX = LEG * MAX_LEGS

/** Blocks from the body to ``pos`` (over x and z when ``pos.y`` is null), rounded. */
function blocksLeft (bot, pos) {
  const p = bot.entity.position
  const dy = pos.y == null ? 0 : pos.y - p.y
  return Math.round(Math.hypot(pos.x - p.x, dy, pos.z - p.z))
}

/** Whether this client holds the chunk of ``pos`` (a null ``y``: the column at the body's height). */
function loaded (bot, pos) {
  const y = pos.y == null ? bot.entity.position.y : pos.y
  return bot.blockAt(new Vec3(Math.floor(pos.x), Math.floor(y), Math.floor(pos.z))) != null
}

/** What a failed walk was, for a machine: ``no_path``, ``blocked`` or ``timed_out`` (else null). */
function walkOutcome (kind) {
  return { target_out_of_reach: 'no_path', stuck: 'blocked', timed_out: 'timed_out' }[kind] || null
}

/** ``detail.walk`` of a walk towards ``pos`` that ended with ``outcome``. */
function walkDetail (bot, pos, outcome) {
  return { outcome, blocks_left: blocksLeft(bot, pos), target: vec({ x: pos.x, y: pos.y == null ? bot.entity.position.y : pos.y, z: pos.z }) }
}

/** A skill's target farther than APPROACH_MAX: a failure at once, before any step. */
function checkRange (bot, pos, what) {
  const d = blocksLeft(bot, pos)
  if (d > APPROACH_MAX) {
    throw new SkillError(`target out of reach: ${what} is ${d} blocks away (a skill walks at most ${APPROACH_MAX} blocks to its target)`,
      { walk: walkDetail(bot, pos, 'no_path') }, 'target_out_of_reach')
  }
}

/**
 * Walk towards ``pos`` ({x, y?, z}) until it is within LONG blocks (LEG + LEG_RANGE after the
 * first leg) and its chunk is loaded: legs of LEG blocks, each A* search small and planned
 * over chunks loaded by then. A leg whose waypoint cannot be reached is tried 40 degrees to
 * either side. Returns when near (or when no leg works but the target is loaded: the final
 * goal is then tried directly and its failure is the skill's); throws a SkillError with
 * ``detail.walk`` when the target stays out of the loaded chunks.
 */
async function approach (ctx, pos, what) {
  const bot = ctx.bot
  for (let i = 0; ; i++) {
    const p = bot.entity.position
    const dx = pos.x - p.x
    const dz = pos.z - p.z
    const d = Math.hypot(dx, dz)
    const near = d <= (i === 0 ? LONG : LEG + LEG_RANGE)
    if (near && !loaded(bot, pos)) await waitLoaded(ctx, pos)
    if (near && loaded(bot, pos)) return
    if (i >= MAX_LEGS) break
    const a = Math.atan2(dz, dx)
    const leg = Math.max(1, Math.min(LEG, d - 2))
    let moved = false
    let last = null
    for (const turn of [0, 0.7, -0.7]) {
      const wx = p.x + leg * Math.cos(a + turn)
      const wz = p.z + leg * Math.sin(a + turn)
      ctx.progress(0, `walking to ${what} (leg ${i + 1})`)
      try {
        await gotoGoal(ctx, new goals.GoalNearXZ(wx, wz, Math.min(LEG_RANGE, Math.max(1, leg / 2))), `a waypoint towards ${what}`)
        moved = true
        break
      } catch (err) {
        if (!(err instanceof SkillError)) throw err
        last = err
      }
    }
    if (!moved) {
      if (loaded(bot, pos)) return
      const kind = last && walkOutcome(last.kind) ? last.kind : 'target_out_of_reach'
      const words = { no_path: 'no path', blocked: 'blocked', timed_out: 'path planning timed out' }[walkOutcome(kind)]
      throw new SkillError(`${words} on the way to ${what}: ${blocksLeft(bot, pos)} blocks left`, { walk: walkDetail(bot, pos, walkOutcome(kind)) }, kind)
    }
  }
  if (!loaded(bot, pos)) {
    throw new SkillError(`target out of reach: ${what} is not loaded after ${MAX_LEGS} legs: ${blocksLeft(bot, pos)} blocks left`,
      { walk: walkDetail(bot, pos, 'no_path') }, 'target_out_of_reach')
  }
}

/** Wait (at most CHUNK_WAIT_MS) for the server to send the chunk of ``pos``. */
async function waitLoaded (ctx, pos) {
  const deadline = Date.now() + CHUNK_WAIT_MS
  while (!loaded(ctx.bot, pos) && Date.now() < deadline) {
    await waitForEvent(ctx.bot, 'chunkColumnLoad', null, Math.max(1, deadline - Date.now()), ctx.signal)
  }
}

/**
 * The one way to walk to a target at a known position from any distance: ``approach`` (legs
 * while it is far or its chunk not loaded), then ``goal`` (a pathfinder goal, or a function
 * returning one once the target is loaded, e.g. after looking the block up). While it walks,
 * ``ctx.walking`` names the target (the runner says how far it was when the skill timed out
 * or got stuck). A walk that cannot finish throws a SkillError whose reason ends with the
 * blocks left and whose ``detail.walk`` is {outcome: no_path | blocked | timed_out,
 * blocks_left, target}.
 */
async function walkTo (ctx, pos, what, goal, opts = {}) {
  const bot = ctx.bot
  const before = ctx.walking
  ctx.walking = { what, pos }
  try {
    await approach(ctx, pos, what)
    const g = typeof goal === 'function' ? goal() : goal
    await gotoGoal(ctx, g, what, opts)
  } catch (err) {
    if (!(err instanceof SkillError) || err.detail.walk || !walkOutcome(err.kind)) throw err
    throw new SkillError(`${err.reason}: ${blocksLeft(bot, pos)} blocks left`, { ...err.detail, walk: walkDetail(bot, pos, walkOutcome(err.kind)) }, err.kind)
  } finally {
    ctx.walking = before
  }
}

module.exports = { goals, GoalReachBlock, GoalBesideTrunk, spotInReach, movementsFor, gotoGoal, walk, digLanded, playerEntity, awaitPlayerEntity, stats, timed, approach, walkTo, checkRange, blocksLeft, walkDetail, walkOutcome, APPROACH_MAX }
