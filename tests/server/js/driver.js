'use strict'
// A plain mineflayer bot driven by JSON lines, for the server tests.
//   node driver.js '{"host": "127.0.0.1", "port": 25565, "username": "alice"}'
// stdin:  {"id": 1, "action": "craft", "args": {...}}
// stdout: {"event": "spawned", ...} once, then {"id": 1, "ok": true, "result": ...}
//         or {"id": 1, "ok": false, "error": "..."}; other events: {"event": ...}
// Modules are resolved from bots/node_modules (PIANO_NODE_MODULES).

const path = require('path')
const readline = require('readline')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const req = (name) => require(path.join(NM, name))
const mineflayer = req('mineflayer')
const { pathfinder, Movements, goals } = req('mineflayer-pathfinder')
const collectBlock = req('mineflayer-collectblock').plugin
const toolPlugin = req('mineflayer-tool').plugin
const { Vec3 } = req('vec3')
const { blocksOf } = require('./scan')
// prismarine-physics lets a box resting on a block's face slip into that block by a float error
// (see bots/body/lib/collide_epsilon.js); a vanilla server puts such a move back, as ours does,
// so this client collides with a vanilla client's tolerance, as our bodies do.
require(path.resolve(__dirname, '../../../bots/body/lib/collide_epsilon')).withTolerance()

const opts = JSON.parse(process.argv[2] || '{}')
if (!opts.version) throw new Error('driver.js: opts.version is required (JsBot passes it)')
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')

const bot = mineflayer.createBot({
  host: opts.host || '127.0.0.1',
  port: opts.port || 25565,
  username: opts.username || 'tester',
  version: opts.version,
  auth: 'offline',
  checkTimeoutInterval: 60000
})
bot.loadPlugin(pathfinder)
let lastStateId = -1 // 1.17+: the state id of the last window packet received
bot._client.on('window_items', (p) => { lastStateId = p.stateId ?? -1 })
bot._client.on('set_slot', (p) => { lastStateId = p.stateId ?? -1 })
bot.loadPlugin(toolPlugin)
bot.loadPlugin(collectBlock)

let registry
// planning time a collect gives one target before leaving it for another
const COLLECT_THINK_MS = 8000
// blocks a player places that walks must never dig through
const PLACED = ['crafting_table', 'furnace', 'chest', 'trapped_chest', 'barrel']
// positions ("(x, y, z)") the current collect digs on purpose, placed blocks among them
let digTargets = new Set()
bot.once('spawn', () => {
  registry = bot.registry
  const moves = new Movements(bot)
  moves.allowParkour = false
  moves.canDig = true
  // a walk may dig through the ground, never through what a player placed (the crafting table
  // placed at the hills was dug away on the way to the next stone: "no crafting table nearby").
  // mineflayer-collectblock installs its own Movements on every collect()
  // (pathfinder.setMovements): the collect's walks and every walk after the first collect use
  // those, so they keep these blocks too (before, only `moves` did: the tech-tree test's first
  // step is a collect, and its table at the hills could still be dug away). Not in
  // blocksCantBreak: a collect's own targets may be placed blocks (collectblock skips a target
  // its Movements may not break)
  const placed = new Set(PLACED.map(name => bot.registry.blocksByName[name].id))
  const keepPlaced = (b) => (placed.has(b.type) && !digTargets.has(b.position.toString()) ? 100 : 0)
  for (const m of [moves, bot.collectBlock.movements]) m.exclusionAreasBreak.push(keepPlaced)
  moves.allow1by1towers = false
  moves.scafoldingBlocks = []
  bot.pathfinder.setMovements(moves)
  bot.pathfinder.thinkTimeout = 20000
  // a walk often ends mid-jump, and mineflayer fixes the dig time when digging starts (5 times
  // longer in the air: a log by hand took 15-16 s instead of 3 s in the wild test): land first
  const rawDig = bot.dig.bind(bot)
  bot.dig = async (block, ...rest) => {
    const end = Date.now() + 1500
    while (!bot.entity.onGround && !bot.entity.isInWater && Date.now() < end) await new Promise(resolve => bot.once('physicsTick', resolve))
    return rawDig(block, ...rest)
  }
  // (on a loaded machine this can time out; blocks are awaited where used)
  bot.waitForChunksToLoad().catch(() => {}).then(() => {
    out({ event: 'spawned', username: bot.username, position: pos(bot.entity.position), gameMode: bot.game.gameMode })
  })
})
bot.on('kicked', (reason) => out({ event: 'kicked', reason: String(reason) }))
bot.on('end', (reason) => { out({ event: 'end', reason: String(reason) }); process.exit(0) })
bot.on('error', (err) => out({ event: 'error', error: String(err && err.message) }))
bot.on('death', () => out({ event: 'death' }))
let spawns = 0
bot.on('spawn', () => { if (++spawns > 1) out({ event: 'respawned', health: bot.health, position: pos(bot.entity.position) }) })
bot.on('whisper', (username, message) => out({ event: 'whisper', username, message }))
bot.on('chat', (username, message) => out({ event: 'chat', username, message }))
bot.on('messagestr', (message) => out({ event: 'message', message }))

const pos = (p) => ({ x: p.x, y: p.y, z: p.z })

// PIANO_DRIVER_TRACE=file: a timeline of digging, drops, pickups and path searches
const TRACE = process.env.PIANO_DRIVER_TRACE
if (TRACE) {
  const fs = require('fs')
  const t0 = Date.now()
  const log = (what, obj = {}) => fs.appendFileSync(TRACE, JSON.stringify({ t: Date.now() - t0, bot: opts.username, what, at: bot.entity && pos(bot.entity.position), ...obj }) + '\n')
  bot.on('diggingCompleted', (b) => log('dug', { block: b.name, pos: pos(b.position) }))
  bot.on('itemDrop', (e) => log('itemDrop', { id: e.id, pos: pos(e.position) }))
  bot.on('playerCollect', (c, e) => log('collect', { by: c.username, id: e.id }))
  bot.on('entityGone', (e) => { if (e.name === 'item') log('itemGone', { id: e.id, pos: pos(e.position) }) })
  bot.on('path_update', (r) => log('path', { status: r.status, nodes: r.visitedNodes, ms: Math.round(r.time), len: r.path.length }))
  bot.on('goal_reached', () => log('goal_reached', { onGround: bot.entity.onGround, feet: bot.blockAt(bot.entity.position)?.name, below: bot.blockAt(bot.entity.position.offset(0, -1, 0))?.name }))
  bot.on('diggingCompleted', () => log('dig_state', { onGround: bot.entity.onGround, feet: bot.blockAt(bot.entity.position)?.name }))
  module.exports.trace = log
}
const itemId = (name) => {
  const it = registry.itemsByName[name]
  if (!it) throw new Error(`unknown item ${name}`)
  return it.id
}
function inventory () {
  return bot.inventory.items().map(i => ({ slot: i.slot, name: i.name, count: i.count }))
}
function count (name) {
  return bot.inventory.items().filter(i => i.name === name).reduce((a, i) => a + i.count, 0)
}
function withTimeout (p, ms, what) {
  let t
  return Promise.race([p, new Promise((resolve, reject) => { t = setTimeout(() => reject(new Error(`timeout: ${what}`)), ms) })])
    .finally(() => clearTimeout(t))
}
async function goto (x, y, z, range = 2, ms = 30000) {
  try {
    await withTimeout(bot.pathfinder.goto(new goals.GoalNear(x, y, z, range)), ms, `goto ${x},${y},${z}`)
  } catch (err) {
    // a planning timeout on a busy machine (ci2: "Took to long to decide path to goal!"): plan
    // once more from where the bot stands now, as a player would try again
    if (!/Took to long to decide path/.test(String(err && err.message))) throw err
    await withTimeout(bot.pathfinder.goto(new goals.GoalNear(x, y, z, range)), ms, `goto ${x},${y},${z}`)
  }
}
// a sort order: nearest to the bot first (``at``: the position of an element)
const nearestFirst = (at = (x) => x) => (a, b) => at(a).distanceTo(bot.entity.position) - at(b).distanceTo(bot.entity.position)
function findBlock (name, maxDistance = 64) {
  const b = registry.blocksByName[name]
  if (!b) throw new Error(`unknown block ${name}`)
  const [nearest] = blocksOf(bot, b.id, maxDistance, 1, () => true)
  return nearest ? bot.blockAt(nearest) : null
}
// dig `targets` (nearest first) as a player would: walk to where the block's face is in
// reach, take the best tool, dig. Each step is bounded: mineflayer-collectblock, used here
// before, walked to every drop and then awaited its pickup with no bound (a drop it could not
// reach, or one the server would not hand over, hung the collect until the test's timeout:
// "timeout: collect stone" in the fresh-clone CI of 6fcbbb2); the drops are fetched by the
// collect's own bounded walk instead. A target the walk finds no way to, or that stays out of
// reach, is thrown as an error carrying `target`.
async function digEach (targets, id, deadline, block) {
  const left = [...targets]
  const moves = bot.collectBlock.movements // collectblock's own (the walks after a collect keep them)
  moves.dontMineUnderFallingBlock = false
  moves.dontCreateFlow = false
  bot.pathfinder.setMovements(moves)
  while (left.length) {
    left.sort(nearestFirst(t => t.position))
    const t = left.shift()
    if (bot.blockAt(t.position)?.type !== id || !moves.safeToBreak(t)) continue
    const fail = (name, message) => Object.assign(new Error(message), { name, target: t.position })
    try {
      await withTimeout(bot.pathfinder.goto(new goals.GoalLookAtBlock(t.position, bot.world)), Math.max(0, deadline - Date.now()), `collect ${block}`)
    } catch (err) {
      if (err.name === 'NoPath' || err.name === 'Timeout') throw fail(err.name, err.message)
      throw err
    }
    const here = bot.blockAt(t.position)
    if (here?.type !== id) continue // dug on the way
    // goto resolves on an empty path, even one the planner found no way to
    if (!bot.canDigBlock(here)) throw fail('NoPath', `out of reach: ${here.position}`)
    await bot.tool.equipForBlock(here, { requireHarvest: true })
    // a dig the server refused never ends in mineflayer (it waits for air): bound it
    const digMs = Math.max(0, Math.min(deadline - Date.now(), 15000))
    // the drop is spawned after the block turns to air (a block that needs a tool it did not
    // have drops nothing): wait for it (1 s at most after the dig), so that the collect's walk
    // over the drops sees it
    const centre = here.position.offset(0.5, 0.5, 0.5)
    let seen = false
    let wake = () => {}
    const onDrop = (e) => { if (e.position.distanceTo(centre) <= 1.5) { seen = true; wake() } }
    bot.on('itemDrop', onDrop)
    try {
      try {
        await withTimeout(bot.dig(here), digMs, `dig ${block}`)
      } catch (err) {
        bot.stopDigging()
        throw fail('Timeout', String(err && err.message))
      }
      if (!seen) await new Promise(resolve => { wake = resolve; setTimeout(resolve, 1000) })
    } finally {
      bot.removeListener('itemDrop', onDrop)
    }
  }
}
async function waitFor (pred, ms, what) {
  const t0 = Date.now()
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error(`timeout waiting for ${what}`)
    await new Promise(resolve => bot.once('physicsTick', resolve))
  }
}

function columns () {
  const cx = Math.floor(bot.entity.position.x / 16)
  const cz = Math.floor(bot.entity.position.z / 16)
  const all = bot.world.getColumns().map(c => [Number(c.chunkX), Number(c.chunkZ)])
  const d = ([x, z]) => Math.max(Math.abs(x - cx), Math.abs(z - cz))
  return { near: all.filter(c => d(c) <= 6).length, far: all.filter(c => d(c) > 8).length, underfoot: all.filter(c => d(c) <= 1).length }
}

// resolves true once pred() holds (checked on every inventory slot update), false after ms
function inventoryReaches (pred, ms) {
  return new Promise(resolve => {
    if (pred()) return resolve(true)
    const check = () => { if (pred()) done(true) }
    const t = setTimeout(() => done(pred()), ms)
    function done (v) { clearTimeout(t); bot.inventory.removeListener('updateSlot', check); resolve(v) }
    bot.inventory.on('updateSlot', check)
  })
}

// the block at a position once its chunk is loaded
/** Open the chest at (x, y, z) (walking up to it unless ``walk`` is false), ``use`` it, and
 * return what it holds once used (slot, name, count per stack). */
let lifted = null // chest_lift's open window, its block and the most players its lid showed
async function usingChest ({ x, y, z }, use, walk = true) {
  const b = await loadedBlock(x, y, z)
  if (walk && bot.entity.position.distanceTo(b.position) > 4) await goto(x, y, z, 3)
  const c = await withTimeout(bot.openContainer(b), 10000, 'open chest')
  await use(c)
  const items = c.containerItems().map(i => ({ slot: i.slot, name: i.name, count: i.count }))
  c.close()
  return items
}

async function loadedBlock (x, y, z, ms = 10000) {
  const v = new Vec3(x, y, z)
  await waitFor(() => bot.blockAt(v) !== null, ms, `chunk at ${x},${z}`)
  return bot.blockAt(v)
}

const actions = {
  async inventory () { return inventory() },
  async position () { return pos(bot.entity.position) },
  async count ({ item }) { return count(item) },
  async wait_count ({ item, atLeast, ms = 10000 }) {
    if (!await inventoryReaches(() => count(item) >= atLeast, ms)) throw new Error(`timeout waiting for ${atLeast} ${item}`)
    return count(item)
  },
  async chat ({ message }) { bot.chat(message); return true },
  async goto ({ x, y, z, range = 2, ms = 30000 }) { await goto(x, y, z, range, ms); return pos(bot.entity.position) },
  // walk to within `range` of (x, z) at whatever height the ground is there
  async goto_xz ({ x, z, range = 2, ms = 30000 }) {
    await withTimeout(bot.pathfinder.goto(new goals.GoalNearXZ(x, z, range)), ms, `goto ${x},${z}`)
    return pos(bot.entity.position)
  },
  async wait_block ({ x, y, z, name, ms = 10000 }) {
    const deadline = Date.now() + ms
    for (;;) {
      const b = bot.blockAt(new Vec3(x, y, z))
      if (b && b.name === name) return true
      if (Date.now() > deadline) throw new Error(`no ${name} at ${x},${y},${z} within ${ms} ms (${b ? b.name : 'not loaded'})`)
      await new Promise(resolve => setTimeout(resolve, 100)) // poll the client's world
    }
  },
  async block_at ({ x, y, z }) { const b = await loadedBlock(x, y, z); return b && b.name },
  async find_block ({ name, maxDistance = 64 }) { const b = findBlock(name, maxDistance); return b && pos(b.position) },
  // the blocks among PLACED that the current walks (whoever set their Movements) may dig through
  async walks_may_dig () {
    const m = bot.pathfinder.movements
    const at = bot.entity.position.floored().offset(0, -200, 0) // no collect's target
    return PLACED.filter(n => { const id = registry.blocksByName[n].id; return !m.blocksCantBreak.has(id) && m.exclusionBreak({ type: id, position: at }) < 100 })
  },

  // craft `count` times the recipe for `item`; table: use the nearest crafting table
  async craft ({ item, count: times = 1, table = false }) {
    let tableBlock = null
    if (table) {
      tableBlock = findBlock('crafting_table', 16) || findBlock('crafting_table', 48)
      if (!tableBlock) throw new Error('no crafting table nearby')
      if (bot.entity.position.distanceTo(tableBlock.position) > 4) await goto(tableBlock.position.x, tableBlock.position.y, tableBlock.position.z, 3)
    }
    const recipes = bot.recipesFor(itemId(item), null, 1, tableBlock)
    if (!recipes.length) throw new Error(`no recipe for ${item} with this inventory`)
    const before = count(item)
    await withTimeout(bot.craft(recipes[0], times, tableBlock || undefined), 20000, `craft ${item}`)
    // the result comes with the server's slot update, which may follow the craft's last
    // click (an inventory read at once lacked the wooden pickaxe once, under load): wait for it
    await inventoryReaches(() => count(item) > before, 5000)
    return { before, after: count(item), inventory: inventory() }
  },

  // dig/collect the nearest block(s) of a kind with the best tool, picking up the drops
  // collect `n` of a block's drops, as a player would: mine the nearest (exposed) blocks,
  // pick up what they drop, and mine more while short (a target no longer safe to break or
  // dug on the way is skipped, as mineflayer-collectblock did)
  async collect ({ block, count: n = 1, maxDistance = 64, ms = 45000, exposed = true, thinkMs = COLLECT_THINK_MS }) {
    const dropsBefore = inventory()
    const deadline = Date.now() + ms
    const id = registry.blocksByName[block].id
    const sides = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, -1]]
    const visible = (b) => sides.some(([x, y, z]) => {
      const n = bot.blockAt(b.position.offset(x, y, z))
      return n && n.name === 'air'
    })
    // what the block drops (without silk touch): stone -> cobblestone; not whatever else
    // the walk there dug through
    const loot = (registry.blockLoot?.[block]?.drops || []).filter(d => !d.silkTouch).map(d => d.item)
    const wanted = new Set(loot.length ? loot : [block])
    const total = () => bot.inventory.items().filter(i => wanted.has(i.name)).reduce((a, i) => a + i.count, 0)
    const had = total()
    const rounds = []
    const unreachable = new Set() // positions the planner found no way to, this collect
    const dropped = new Map() // every item dropped near a target (for the fetch and the error)
    let targets = []
    const near = (e) => targets.some(t => e.position.distanceTo(t.position.offset(0.5, 0.5, 0.5)) <= 8)
    const onDrop = (e) => { if (near(e)) dropped.set(e.id, e) }
    const lying = () => [...dropped.values()].filter(e => e.isValid && bot.entities[e.id] === e)
    bot.on('itemDrop', onDrop)
    try {
      for (let round = 0; round < 4 && total() - had < n; round++) {
        const short = n - (total() - had)
        const scanFrom = Date.now()
        const found = blocksOf(bot, id, maxDistance, short * 4, (b) => (!exposed || visible(b)) && !unreachable.has(b.position.toString()))
        module.exports.trace?.('scan', { block, ms: Date.now() - scanFrom, found: found.length })
        found.sort(nearestFirst())
        targets = found.slice(0, short).map(p => bot.blockAt(p))
        if (round === 0 && targets.length < n) throw new Error(`only ${targets.length} ${block} found`)
        if (!targets.length || Date.now() >= deadline) break
        const before = total()
        digTargets = new Set(targets.map(t => t.position.toString()))
        let pathError = null
        // an unreachable target costs at most this much planning (a reachable one at the hills
        // or a tree takes 0-600 nodes, under 0.5 s with two CPU hogs running)
        const think = bot.pathfinder.thinkTimeout
        bot.pathfinder.thinkTimeout = Math.min(think, thinkMs)
        try {
          await digEach(targets, id, deadline, block)
        } catch (err) {
          // a target the planner finds no way to (or none within its think time): leave it, as a
          // player would, and mine others in the next round. An exposed block can be out of
          // reach (no place to stand sees its open face), and mineflayer-pathfinder's
          // GoalLookAtBlock then searches the dig-through world until its think time is up
          if (!err.target) throw err
          pathError = { kind: err.name, at: pos(err.target) }
          unreachable.add(err.target.toString())
        } finally {
          bot.pathfinder.thinkTimeout = think
        }
        // the drops lying near (every target's: the digs above leave them): walk over them
        const t0 = Date.now()
        const walkMs = 10000 + 2000 * targets.length
        module.exports.trace?.('drops', { lying: lying().length, seen: dropped.size, total: total() - had })
        while (total() - had < n && lying().length && Date.now() < Math.min(t0 + walkMs, deadline + 3000)) {
          const e = lying().sort(nearestFirst(stack => stack.position))[0]
          try {
            // into the drop's own block: the server hands a drop to a player within 1.75 blocks of
            // it, and a goal 1 block off ended 1.6 blocks from a log's drop, 16 s without it
            await withTimeout(bot.pathfinder.goto(new goals.GoalNear(e.position.x, e.position.y, e.position.z, 0)), 8000, 'walk to a drop')
          } catch (err) { module.exports.trace?.('dropwalk', { err: String(err && err.message) }) }
          await inventoryReaches(() => !e.isValid || bot.entities[e.id] !== e, 1500)
        }
        await inventoryReaches(() => total() - had >= n, 2000) // pickups in flight
        rounds.push({ targets: targets.length, got: total() - before, ...(pathError && { pathError }) })
      }
    } finally {
      digTargets = new Set()
      bot.removeListener('itemDrop', onDrop)
    }
    if (!await inventoryReaches(() => total() - had >= n, 3000)) {
      const seen = [...dropped.values()].map(e => ({ at: pos(e.position), lying: e.isValid && bot.entities[e.id] === e }))
      throw new Error(`collected only ${total() - had} of ${n} ${block} (${[...wanted]}) in rounds ${JSON.stringify(rounds)}: ` +
        `drops seen ${JSON.stringify(seen)}, bot at ${JSON.stringify(pos(bot.entity.position))}, ` +
        `its inventory as it sees it ${JSON.stringify(inventory())}, window ${bot.currentWindow ? bot.currentWindow.id : 'none'}`)
    }
    return { before: dropsBefore, inventory: inventory(), rounds }
  },

  // dig one block at a position holding `tool` (or an empty hand); with `name`, the block the
  // caller put there: dug once this client sees it (a setblock reaches the client after the
  // command returns). Each step is bounded below the caller's 30 s so that a failure names it.
  async dig_at ({ x, y, z, tool = null, name = null }) {
    const v = new Vec3(x, y, z)
    await loadedBlock(x, y, z)
    if (name) await waitFor(() => bot.blockAt(v)?.name === name, 10000, `${name} at ${v} (the client sees ${bot.blockAt(v)?.name})`)
    const b = bot.blockAt(v)
    if (bot.entity.position.distanceTo(b.position.offset(0.5, 0.5, 0.5)) > 4.2) await goto(x, y, z, 2, 15000)
    if (tool) await withTimeout(bot.equip(itemId(tool), 'hand'), 5000, `equip ${tool}`)
    else if (bot.heldItem) await withTimeout(bot.unequip('hand'), 5000, 'unequip')
    const state = () => `${b.name} at ${v}: dig time ${bot.digTime(b)} ms holding ${bot.heldItem?.name ?? 'nothing'}, ` +
      `on ground ${bot.entity.onGround}, from ${JSON.stringify(pos(bot.entity.position))}, the client sees ${bot.blockAt(v)?.name}`
    await withTimeout(bot.dig(b, true), bot.digTime(b) + 5000, `dig ${state()}`)
    return { name: b.name, blockNow: bot.blockAt(v).name, inventory: inventory() }
  },

  // dig a block from where the bot stands, however far (as a modified client may): whether
  // the dig finished within `ms`, and the block the bot then sees there
  async dig_from_here ({ x, y, z, ms = 5000 }) {
    const b = await loadedBlock(x, y, z)
    if (bot.heldItem) await bot.unequip('hand')
    let finished = true
    try {
      await withTimeout(bot.dig(b, 'ignore'), ms, 'dig')
    } catch (err) {
      if (!/^timeout: dig/.test(String(err && err.message))) throw err
      finished = false
      bot.stopDigging()
    }
    const here = bot.entity.position
    const distance = here.offset(0, 1.5, 0).distanceTo(b.position.offset(0.5, 0.5, 0.5))
    return { name: b.name, finished, blockNow: bot.blockAt(new Vec3(x, y, z)).name, distance }
  },

  // walk to a spot and wait until the inventory holds `atLeast` of `item`
  async pickup ({ x, y, z, item, atLeast, ms = 10000 }) {
    try { await goto(x, y, z, 1, 8000) } catch (e) {}
    // then onto the stack itself (it may have rolled out of pickup range of the spot)
    const spot = new Vec3(x + 0.5, y, z + 0.5)
    const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(spot) < 3)
    if (drop && count(item) < atLeast) {
      const p = drop.position
      try { await withTimeout(bot.pathfinder.goto(new goals.GoalBlock(Math.floor(p.x), Math.floor(p.y + 0.05), Math.floor(p.z))), 8000, 'walk onto the drop') } catch (e) {}
    }
    if (!await inventoryReaches(() => count(item) >= atLeast, ms)) {
      // what the bot saw: a drop lying out of its reach, or none at all
      const near = Object.values(bot.entities).filter(e => e.name === 'item' && e.position.distanceTo(spot) < 8).map(e => pos(e.position))
      throw new Error(`timeout waiting for ${atLeast} ${item}: bot at ${JSON.stringify(pos(bot.entity.position))}, items within 8 of the spot ${JSON.stringify(near)}`)
    }
    return { inventory: inventory() }
  },

  // dropped item entities within `range` blocks
  async nearby_items ({ range = 8 }) {
    return Object.values(bot.entities)
      .filter(e => e.name === 'item' && e.position.distanceTo(bot.entity.position) <= range)
      .map(e => { const it = e.getDroppedItem && e.getDroppedItem(); return { name: it && it.name, count: it && it.count, position: pos(e.position) } })
  },

  // wait until the client knows a dropped item of NAME within RANGE (an item entity's stack
  // reaches the client in the entity's metadata, after its spawn packet)
  async wait_item_entity ({ name, range = 8, ms = 10000 }) {
    // an item entity spawned but whose metadata has not arrived yet has no stack to read
    // (mineflayer's getDroppedItem throws on it): not shown yet
    const stack = (e) => { try { return e.getDroppedItem() } catch (err) { return null } }
    const shown = () => Object.values(bot.entities).some(e => e.name === 'item' &&
      e.position.distanceTo(bot.entity.position) <= range && stack(e)?.name === name)
    await waitFor(shown, ms, `a dropped ${name} within ${range} blocks`)
    return name
  },

  // walk to the nearest mob of a kind and hit it until it dies; returns its id
  async kill_mob ({ mob, ms = 30000 }) {
    const target = bot.nearestEntity(e => e.name === mob)
    if (!target) throw new Error(`no ${mob} in sight`)
    const id = target.id
    const t0 = Date.now()
    let hits = 0
    while (bot.entities[id] && Date.now() - t0 < ms) {
      const e = bot.entities[id]
      if (bot.entity.position.distanceTo(e.position) > 3) {
        await goto(Math.floor(e.position.x), Math.floor(e.position.y), Math.floor(e.position.z), 2, 15000)
        continue
      }
      await bot.lookAt(e.position.offset(0, 0.5, 0), true)
      bot.attack(e)
      hits++
      await new Promise(resolve => setTimeout(resolve, 300))
    }
    if (bot.entities[id]) throw new Error(`${mob} still alive after ${hits} hits`)
    return { hits, gone: true }
  },

  // after a teleport to (x, z): wait until standing on a block there; the loaded columns
  // (the server may move a landing up to 12 blocks sideways, off a tree or out of a lake:
  // plugins/wild.js)
  async landed ({ x, z, ms = 5000 }) {
    const t0 = Date.now()
    // a player stands on whatever block its 0.6-wide feet rest on: at a block's edge or
    // corner that need not be the block under its centre
    const footing = () => {
      const p = bot.entity.position
      return [[-0.3, -0.3], [-0.3, 0.3], [0.3, -0.3], [0.3, 0.3]]
        .map(([dx, dz]) => bot.blockAt(p.offset(dx, -0.5, dz)))
        .filter(b => b && b.boundingBox === 'block').map(b => b.name)
    }
    const standing = () => {
      const p = bot.entity.position
      return Math.abs(p.x - x) < 13 && Math.abs(p.z - z) < 13 && bot.entity.onGround && footing().length > 0 &&
        columns().underfoot === 9 // and the 3x3 columns around the feet
    }
    // (polled on a timer: mineflayer emits no physics ticks while its chunk is missing)
    while (!standing()) {
      if (Date.now() - t0 > ms) {
        throw new Error(`not standing at ${x}, ${z} after ${ms} ms: at ${JSON.stringify(pos(bot.entity.position))}, onGround ${bot.entity.onGround}, footing ${JSON.stringify(footing())}, columns ${JSON.stringify(columns())}`)
      }
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    return { ms: Date.now() - t0, position: pos(bot.entity.position), ...columns() }
  },

  // the next position the server sets is answered first by a move from where the bot
  // stood (as a client does whose move was on the wire when the teleport was sent)
  async stale_move_on_next_teleport () {
    const from = bot.entity.position.clone()
    bot._client.prependOnceListener('position', () => {
      // one TCP write with mineflayer's confirmation that follows: the server reads both at once
      const socket = bot._client.socket
      socket.cork()
      setTimeout(() => socket.uncork(), 20)
      bot._client.write('position', { x: from.x, y: from.y, z: from.z, onGround: true })
    })
    return pos(from)
  },

  // loaded columns near (within 6 chunks) and far (more than 8 chunks away) from the bot
  async columns () { return columns() },
  async wait_columns ({ near, ms = 15000 }) {
    const t0 = Date.now()
    const ok = () => { const c = columns(); return c.near >= near && c.far === 0 }
    while (!ok()) {
      if (Date.now() - t0 > ms) throw new Error(`columns after ${ms} ms: ${JSON.stringify(columns())}`)
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    return columns()
  },
  async players () { return Object.keys(bot.players).sort() },
  // whether another player is an entity this bot sees (type 'player'), and where
  async player_entity ({ name }) {
    const e = bot.players[name] && bot.players[name].entity
    return e ? { type: e.type, name: e.name, position: pos(e.position) } : null
  },
  // wait until this bot sees another player's entity within `d` blocks of (x, z)
  async player_near ({ name, x, z, d = 1.5, ms = 10000 }) {
    const seen = () => {
      const e = bot.players[name] && bot.players[name].entity
      return e && Math.hypot(e.position.x - x, e.position.z - z) <= d ? e : null
    }
    let check
    const e = seen() || await withTimeout(new Promise(resolve => {
      check = () => { const found = seen(); if (found) resolve(found) }
      bot.on('entityMoved', check)
    }), ms, `${name} near ${x}, ${z}`).finally(() => bot.off('entityMoved', check))
    return pos(e.position)
  },
  // the items a block drops at this version (minecraft-data), e.g. iron_ore -> raw_iron at 1.17+
  async drops_of ({ block }) {
    const b = registry.blocksByName[block]
    if (!b) throw new Error(`unknown block ${block}`)
    return b.drops.map(d => registry.items[typeof d === 'object' ? d.drop.id ?? d.drop : d].name)
  },
  async health () { return { health: bot.health, food: bot.food } },

  async time () { return { timeOfDay: bot.time.timeOfDay } },

  async place ({ item, x, y, z }) {
    // place `item` on top of the block below (x, y, z)
    const ref = bot.blockAt(new Vec3(x, y - 1, z))
    if (!ref) throw new Error('reference block not loaded')
    if (bot.entity.position.distanceTo(ref.position) > 4) await goto(x, y, z, 3)
    await bot.equip(itemId(item), 'hand')
    await withTimeout(bot.placeBlock(ref, new Vec3(0, 1, 0)), 10000, 'place')
    return bot.blockAt(new Vec3(x, y, z)).name
  },

  // place `item` on a free spot next to the bot (solid below, not where the bot stands)
  async place_near ({ item }) {
    const me = bot.entity.position.floored()
    const spots = []
    for (let dx = -2; dx <= 2; dx++) {
      for (let dz = -2; dz <= 2; dz++) {
        for (let dy = -1; dy <= 1; dy++) {
          if (Math.abs(dx) <= 1 && Math.abs(dz) <= 1 && dx === 0 && dz === 0) continue
          const p = me.offset(dx, dy, dz)
          const b = bot.blockAt(p)
          const below = bot.blockAt(p.offset(0, -1, 0))
          const above = bot.blockAt(p.offset(0, 1, 0))
          if (b && b.name === 'air' && above && above.name === 'air' && below && below.boundingBox === 'block') spots.push(p)
        }
      }
    }
    spots.sort((a, b) => a.distanceTo(me) - b.distanceTo(me))
    if (!spots.length) throw new Error('no free spot to place ' + item)
    const p = spots[0]
    await bot.equip(itemId(item), 'hand')
    await bot.lookAt(p.offset(0.5, 0, 0.5), true)
    await withTimeout(bot.placeBlock(bot.blockAt(p.offset(0, -1, 0)), new Vec3(0, 1, 0)), 10000, 'place')
    return { position: pos(p), name: bot.blockAt(p).name, inventory: inventory() }
  },

  async equip ({ item }) { await bot.equip(itemId(item), 'hand'); return bot.heldItem && bot.heldItem.name },

  async chest_contents (at) {
    return usingChest(at, async () => {})
  },

  async chest_deposit ({ item, count: n, ...at }) {
    const chest = await usingChest(at, c => withTimeout(c.deposit(itemId(item), null, n), 10000, 'deposit'))
    return { chest, inventory: inventory() }
  },

  async chest_withdraw ({ item, count: n, ...at }) {
    const chest = await usingChest(at, c => withTimeout(c.withdraw(itemId(item), null, n), 10000, 'withdraw'))
    return { chest, inventory: inventory() }
  },

  // open the chest and lift the stack of slot SLOT onto the cursor, the window left open: a
  // player in the middle of a transfer (the chest shows that slot empty meanwhile)
  async chest_lift ({ slot = 0, ...at }) {
    const b = await loadedBlock(at.x, at.y, at.z)
    lifted = { window: await withTimeout(bot.openContainer(b), 10000, 'open chest'), block: b, most: 1 }
    bot.on('chestLidMove', (block, players) => { if (block.position.equals(b.position)) lifted.most = Math.max(lifted.most, players) })
    await bot.clickWindow(slot, 0, 0)
    const held = lifted.window.selectedItem
    return held ? [held.name, held.count] : null
  },

  // once another player has opened the chest of chest_lift (its lid showed two, if only for a
  // moment), put the stack back into slot SLOT and close the chest; returns what the chest then
  // holds
  async chest_put_back_when_opened ({ slot = 0, ms = 20000 }) {
    await waitFor(() => lifted.most >= 2, ms, 'another player at the lifted chest')
    await bot.clickWindow(slot, 0, 0)
    const items = lifted.window.containerItems().map(i => ({ slot: i.slot, name: i.name, count: i.count }))
    lifted.window.close()
    return items
  },

  // shift-click (mode 1) a slot of an open container window, for click-protocol tests
  async chest_shift_click ({ slot, ...at }) {
    const chest = await usingChest(at, () => bot.clickWindow(slot, 0, 1), false)
    return { chest, inventory: inventory() }
  },

  // put input + fuel, wait until `count` outputs are ready, take them
  async smelt ({ x, y, z, input, fuel, count: n = 1, fuelCount = 1, ms = 40000 }) {
    const b = await loadedBlock(x, y, z)
    if (bot.entity.position.distanceTo(b.position) > 4) await goto(x, y, z, 3)
    const f = await withTimeout(bot.openFurnace(b), 10000, 'open furnace')
    await f.putFuel(itemId(fuel), null, fuelCount)
    await f.putInput(itemId(input), null, n)
    const t0 = Date.now()
    await waitFor(() => f.outputItem() && f.outputItem().count >= n, ms, 'smelting')
    const took = f.outputItem().name
    await f.takeOutput()
    f.close()
    return { output: took, seconds: (Date.now() - t0) / 1000, inventory: inventory() }
  },

  // raw clicks [[slot, mouseButton, mode], ...] in the player inventory window
  async clicks ({ clicks }) {
    for (const [slot, button, mode] of clicks) await bot.clickWindow(slot, button, mode)
    return { inventory: inventory(), grid: [1, 2, 3, 4].map(i => bot.inventory.slots[i] && bot.inventory.slots[i].name) }
  },

  // wait until the client shows NAME (null: nothing) in slot SLOT of the player inventory window:
  // a player clicks what its client shows (a click on a result not shown yet is rejected)
  async wait_slot ({ slot, name, ms = 10000 }) {
    const shown = () => (bot.inventory.slots[slot] ? bot.inventory.slots[slot].name : null)
    await waitFor(() => shown() === name, ms, `slot ${slot} showing ${name}`)
    return shown()
  },

  // one 1.17+ window_click on the inventory window, written as given (not mineflayer's): the
  // state id of the last window packet received (staleId: one before it), the client's claimed
  // changed slots [[slot, name|null, count]] and cursor [name, count]|null; returns the first
  // window packet that answers it: {packet: 'window_items', items: {slot: [name, count]},
  // carried} or {packet: 'set_slot', windowId, slot, item: [name, count]|null}
  async raw_click ({ slot, button = 0, mode = 0, staleId = false, changed = [], cursor = null, ms = 5000 }) {
    const Item = req('prismarine-item')(bot.registry)
    const notch = (x) => Item.toNotch(x && x[0] ? new Item(itemId(x[0]), x[1]) : null)
    const named = (n) => { const it = Item.fromNotch(n); return it ? [it.name, it.count] : null }
    let done
    const answered = new Promise((resolve, reject) => {
      const timer = setTimeout(() => { done(); reject(new Error('no window packet answered the click')) }, ms)
      const onItems = (p) => {
        done()
        const items = {}
        p.items.forEach((n, i) => { const it = named(n); if (it) items[i] = it })
        resolve({ packet: 'window_items', windowId: p.windowId, items, carried: named(p.carriedItem) })
      }
      const onSlot = (p) => { done(); resolve({ packet: 'set_slot', windowId: p.windowId, slot: p.slot, item: named(p.item) }) }
      done = () => {
        clearTimeout(timer)
        bot._client.removeListener('window_items', onItems)
        bot._client.removeListener('set_slot', onSlot)
      }
      bot._client.on('window_items', onItems)
      bot._client.on('set_slot', onSlot)
    })
    bot._client.write('window_click', {
      windowId: 0,
      stateId: staleId ? lastStateId - 1 : lastStateId,
      slot,
      mouseButton: button,
      mode,
      changedSlots: changed.map(([location, name, n]) => ({ location, item: notch([name, n]) })),
      cursorItem: notch(cursor)
    })
    return answered
  },

  async slot_of ({ item }) { const it = bot.inventory.findInventoryItem(itemId(item)); return it ? it.slot : null },

  async quit () { setTimeout(() => bot.quit(), 10); return true }
}

const rl = readline.createInterface({ input: process.stdin })
let queue = new Promise(resolve => bot.once('spawn', resolve))
rl.on('line', (line) => {
  let msg
  try { msg = JSON.parse(line) } catch (e) { return out({ event: 'bad_input', line }) }
  queue = queue.then(async () => {
    const fn = actions[msg.action]
    try {
      if (!fn) throw new Error(`unknown action ${msg.action}`)
      const result = await fn(msg.args || {})
      out({ id: msg.id, ok: true, result })
    } catch (err) {
      out({ id: msg.id, ok: false, error: String(err && (err.stack || err.message || err)) })
    }
  })
})
rl.on('close', () => { try { bot.quit() } catch (e) {} setTimeout(() => process.exit(0), 500) })
// exit if the parent (the test) dies
const parent = process.ppid
setInterval(() => { if (process.ppid !== parent) process.exit(0) }, 1000).unref()
