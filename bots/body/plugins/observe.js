'use strict'
// Observation snapshot: one plain object with exactly the fields of agent_runtime.world.Observation.
const { Vec3 } = require('vec3')
const { vec, round, inventoryCounts } = require('../lib/util')
const { scanStates } = require('../lib/scan')

const NOTABLE_EXACT = new Set([
  'chest', 'trapped_chest', 'barrel', 'crafting_table', 'furnace', 'blast_furnace', 'smoker',
  'wheat', 'carrots', 'potatoes', 'beetroots', 'melon', 'pumpkin', 'sugar_cane', 'bee_nest'
])
const isNotable = (name) => NOTABLE_EXACT.has(name) || name.endsWith('_log') || name.endsWith('_ore') || name.endsWith('_bed')

const PLAYER_RADIUS = 64
const ENTITY_RADIUS = 32
const BLOCK_RADIUS = 16 // default; host option notable_radius. 24 costs ~20x more in the village
const MAX_ENTITIES = 24
const MAX_BLOCKS = 48
const MAX_PER_KIND = 6
const BLOCKS_TTL_MS = 2000
const CHAT_MAX = 10
const CHAT_MAX_AGE_S = 300

/**
 * inject(bot, body): keeps a per-bot cache of notable block positions that is
 * refreshed when stale, when the bot moved, or when a block changed nearby.
 */
function inject (bot) {
  const cache = { at: 0, from: null, blocks: [], dirty: true, ids: null }
  bot.notableCache = cache
  // Some servers never destroy killed mobs (BUGS_FROM_BODIES.md #3): hide them once dead.
  bot.deadEntityIds = new Set()
  bot.on('entityDead', (e) => { if (e.type !== 'player') bot.deadEntityIds.add(e.id) })
  bot.on('entityGone', (e) => bot.deadEntityIds.delete(e.id))
  bot.on('blockUpdate', (oldBlock, newBlock) => {
    if (cache.dirty || !cache.from || !newBlock) return
    const changed = (oldBlock && cache.ids && cache.ids.has(oldBlock.type)) || (cache.ids && cache.ids.has(newBlock.type))
    if (changed && newBlock.position.distanceTo(cache.from) <= 34) cache.dirty = true
  })
}

/**
 * stateId -> index+1 into ``names`` for every notable block state (0 = not notable), and
 * stateId -> 1 for every state one can see through (air, water, plants, leaves, glass).
 */
function notableLookup (bot) {
  const names = []
  let maxState = 0
  for (const b of Object.values(bot.registry.blocks)) maxState = Math.max(maxState, b.maxStateId ?? b.id)
  const lookup = new Uint16Array(maxState + 1)
  const seeThrough = new Uint8Array(maxState + 1)
  for (const b of Object.values(bot.registry.blocks)) {
    const clear = b.boundingBox === 'empty' || b.transparent
    if (clear) for (let s = b.minStateId ?? b.id; s <= (b.maxStateId ?? b.id); s++) seeThrough[s] = 1
    if (!isNotable(b.name)) continue
    names.push(b.name)
    for (let s = b.minStateId ?? b.id; s <= (b.maxStateId ?? b.id); s++) lookup[s] = names.length
  }
  return { lookup, names, seeThrough }
}

const FACES = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

/**
 * Whether a face of the block at ``p`` borders a block one can see through: an agent sees
 * the ore in a cave wall or on a hillside, never the ore inside the rock (no x-ray). A
 * neighbour in a chunk the client does not have counts as unseen.
 */
function exposed (bot, p, seeThrough) {
  const world = bot.world
  return FACES.some(([x, y, z]) => {
    const q = p.offset(x, y, z)
    return world.getColumnAt(q) ? seeThrough[world.getBlockStateId(q)] === 1 : false
  })
}

/**
 * Positions of notable blocks within ``radius`` of ``center``, nearest first. Reads state
 * ids from the chunk sections directly and skips sections whose palette has none of them
 * (mineflayer's findBlocks builds a Block object per position: ~100x slower).
 */
function scanNotable (bot, center, radius, { lookup, names }) {
  const found = []
  scanStates(bot, center, radius, lookup, (x, y, z, idx, d2) => {
    found.push({ name: names[idx - 1], p: new Vec3(x, y, z), d2 })
  })
  return found.sort((a, b) => a.d2 - b.d2)
}

function notableBlocks (bot, radius) {
  const cache = bot.notableCache
  const pos = bot.entity.position
  if (!cache.table) cache.table = notableLookup(bot)
  if (!cache.ids) {
    cache.ids = new Set(Object.values(bot.registry.blocksByName).filter(b => isNotable(b.name)).map(b => b.id))
  }
  const fresh = !cache.dirty && cache.from && Date.now() - cache.at < BLOCKS_TTL_MS && cache.from.distanceTo(pos) < 2
  if (!fresh) {
    const perKind = {}
    const blocks = []
    for (const { name, p } of scanNotable(bot, pos, radius, cache.table)) {
      if (!exposed(bot, p, cache.table.seeThrough)) continue
      perKind[name] = (perKind[name] || 0) + 1
      if (perKind[name] > MAX_PER_KIND) continue
      blocks.push({ name, p })
      if (blocks.length >= MAX_BLOCKS) break
    }
    cache.blocks = blocks
    cache.at = Date.now()
    cache.from = pos.clone()
    cache.dirty = false
  }
  return cache.blocks
    .map(({ name, p }) => ({ name, position: vec(p), distance: round(p.offset(0.5, 0.5, 0.5).distanceTo(pos)) }))
    .sort((a, b) => a.distance - b.distance)
}

/** The snapshot; ``body`` supplies connection state, chat log and skill progress. */
function snapshot (body) {
  const bot = body.bot
  const now = Date.now() / 1000
  const chat = body.chatLog.filter(c => now - c.at <= CHAT_MAX_AGE_S).slice(-CHAT_MAX)
  const skill = body.runner.progress()
  if (!bot || !body.connected || !bot.entity) {
    return {
      at: now, connected: false, position: null, health: 0, food: 0, time_of_day: 0, inventory: {},
      held_item: null, players: [], entities: [], blocks: [], chat, skill
    }
  }
  const me = bot.entity.position
  const players = []
  const entities = []
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.position || (bot.deadEntityIds && bot.deadEntityIds.has(e.id))) continue
    const d = e.position.distanceTo(me)
    if (e.type === 'player') {
      if (d <= PLAYER_RADIUS && e.username) players.push({ name: e.username, position: vec(e.position), distance: round(d) })
    } else if (d <= ENTITY_RADIUS) {
      entities.push({ id: e.id, kind: String(e.name || e.type || 'unknown'), position: vec(e.position), distance: round(d) })
    }
  }
  players.sort((a, b) => a.distance - b.distance)
  entities.sort((a, b) => a.distance - b.distance)
  const held = bot.heldItem
  return {
    at: now,
    connected: true,
    position: vec(me),
    health: round(bot.health ?? 0),
    food: round(bot.food ?? 0),
    time_of_day: bot.time && Number.isFinite(bot.time.timeOfDay) ? ((bot.time.timeOfDay % 24000) + 24000) % 24000 : 0,
    inventory: inventoryCounts(bot),
    held_item: held ? held.name : null,
    players,
    entities: entities.slice(0, MAX_ENTITIES),
    blocks: notableBlocks(bot, (body.opts && body.opts.notableRadius) || BLOCK_RADIUS),
    chat,
    skill
  }
}

module.exports = { inject, snapshot, isNotable, scanNotable }
