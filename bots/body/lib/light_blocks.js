'use strict'
// Blocks for the physics and the path search without building a Block per look-up. The physics
// (each tick, and the pathfinder's look-ahead: every tick of a walk it simulates ticks ahead to
// choose between sprinting and jumping) and the A* search ask for the blocks around a position
// many thousand times a second; mineflayer's bot.blockAt made a prismarine-block Block for each
// (its state's properties and shapes, its light, biome and block entity), where much of a body
// process's CPU went in a crowded village (bots/body/BENCH.md has the profile). What they read
// of a block (type, name, shapes, bounding box, metadata, properties, hardness and harvest
// tools, position) follows from its state id: here a Block is made once per state id and each
// look-up is a small object over it with its own position. Light, biome and block entity are
// not there (neither reads them).
const { Vec3 } = require('vec3')
const prismarineBlock = require('prismarine-block')

const byRegistry = new WeakMap() // registry -> { Block, protos: [] }

function tableOf (registry) {
  let t = byRegistry.get(registry)
  if (!t) {
    t = { registry, Block: prismarineBlock(registry), protos: [] }
    byRegistry.set(registry, t)
  }
  return t
}

const scratch = new Vec3(0, 0, 0)

// the column a bot's last look-up found, by its chunk coordinates: the physics and the path
// search ask for neighbouring blocks, nearly always in the column of the last one, where
// prismarine-world builds a string key per look-up; looked up again once the world changed
// (generationOf: mineflayer loads and unloads columns through the calls counted there)
const lastColumns = new WeakMap() // world -> { cx, cz, n, column }

function columnAt (world, x, z) {
  const g = generationOf(world)
  let last = lastColumns.get(world)
  if (!last) {
    last = { cx: NaN, cz: NaN, n: g.n, column: null }
    lastColumns.set(world, last)
  }
  const cx = Math.floor(x / 16)
  const cz = Math.floor(z / 16)
  if (cx !== last.cx || cz !== last.cz || last.n !== g.n) {
    last.column = world.getColumn(cx, cz)
    last.cx = cx
    last.cz = cz
    last.n = g.n
  }
  return last.column
}

/** The block at ``pos`` as the physics and the path search read it, or null outside the loaded chunks. */
function lightBlockAt (bot, pos) {
  const world = bot.world
  if (!world) return null
  const column = typeof world.on === 'function' ? columnAt(world, pos.x, pos.z) : world.getColumnAt(pos)
  if (!column) return null
  const x = Math.floor(pos.x)
  const y = Math.floor(pos.y)
  const z = Math.floor(pos.z)
  scratch.x = x & 15; scratch.y = y; scratch.z = z & 15
  const stateId = column.getBlockStateId(scratch)
  const t = bot.pianoBlockTable && bot.pianoBlockTable.registry === bot.registry ? bot.pianoBlockTable : (bot.pianoBlockTable = tableOf(bot.registry))
  let proto = t.protos[stateId]
  if (proto === undefined) {
    proto = t.Block.fromStateId(stateId, 0)
    t.protos[stateId] = proto
  }
  const block = Object.create(proto)
  block.position = new Vec3(x, y, z)
  return block
}

const worlds = new WeakMap() // bot -> world for prismarine-physics

/**
 * A prismarine-physics world over ``bot``'s loaded chunks (one per bot). A simulated tick
 * reads the cells around the body's box, and the pathfinder's look-ahead simulates up to 60
 * ticks at every tick of a walk, mostly the same cells: each is read once until the world
 * changes (the physics only reads the blocks it is given).
 */
function lightWorld (bot) {
  let w = worlds.get(bot)
  if (!w) {
    const owner = {}
    w = {
      getBlock: (pos) => {
        const world = bot.world
        if (!world || typeof world.on !== 'function') return lightBlockAt(bot, pos)
        const x = Math.floor(pos.x)
        const y = Math.floor(pos.y)
        const z = Math.floor(pos.z)
        if (!inGrid(x, y, z)) return lightBlockAt(bot, pos)
        const cells = cellMemo(owner, world, WALK_CELLS)
        const key = cellKey(x, y, z)
        let b = cells.get(key)
        if (b === undefined) {
          b = lightBlockAt(bot, pos)
          cells.set(key, b)
        }
        return b
      }
    }
    worlds.set(bot, w)
  }
  return w
}

let movementsPatched = false

/**
 * The pathfinder's Movements read blocks as lightBlockAt does: the same getBlock as
 * mineflayer-pathfinder 2.4's (lib/movements.js), over a light block whose derived fields
 * come from one object per state id (movementInfo) instead of being set at every look-up.
 */
function lightMovements () {
  if (movementsPatched) return
  movementsPatched = true
  const { Movements } = require('mineflayer-pathfinder')
  patchEntityCells(Movements)
  Movements.prototype.getBlock = function (pos, dx, dy, dz) {
    const bot = this.bot
    const world = pos ? bot.world : null
    const px = pos ? pos.x + dx : 0
    const pz = pos ? pos.z + dz : 0
    // a search reads each cell about eleven times (a node weighs the blocks above and below
    // its neighbours, most of them its neighbours' neighbours too): the state's derived fields
    // are remembered per cell until the world changes; each read gets an object of its own
    // (the search raises the height of a block where it would place one)
    let cells = null
    let key = 0
    if (world && typeof world.on === 'function') {
      const py = pos.y + dy
      if (Number.isInteger(px) && Number.isInteger(py) && Number.isInteger(pz) && inGrid(px, py, pz)) {
        cells = cellMemo(this, world, SEARCH_CELLS)
        key = cellKey(px, py, pz)
        const info = cells.get(key)
        if (info !== undefined) {
          const b = Object.create(info)
          b.position = new Vec3(px, py, pz)
          b.height = py + info.pianoTop
          return b
        }
      }
    }
    const column = world ? (typeof world.on === 'function' ? columnAt(world, px, pz) : world.getColumnAt(new Vec3(px, 0, pz))) : null
    if (!column) {
      return {
        replaceable: false,
        canFall: false,
        safe: false,
        physical: false,
        liquid: false,
        climbable: false,
        height: dy,
        openable: false
      }
    }
    const x = Math.floor(px)
    const y = Math.floor(pos.y + dy)
    const z = Math.floor(pz)
    scratch.x = x & 15; scratch.y = y; scratch.z = z & 15
    const info = movementInfo(this, bot, column.getBlockStateId(scratch))
    const b = Object.create(info)
    b.position = new Vec3(x, y, z)
    b.height = pos.y + dy + info.pianoTop
    if (cells !== null) cells.set(key, info)
    return b
  }
}

// what one memo holds at most before it starts again: a search across the village reads a few
// thousand cells, a simulated walk a few hundred
const SEARCH_CELLS = 8192
const WALK_CELLS = 2048

// A world's generation: one more at every block change and column load or unload (one set of
// listeners per world, whatever remembers cells of it), counted before any other listener of
// the world hears of the change.
const generations = new WeakMap() // world -> { n }

function generationOf (world) {
  let g = generations.get(world)
  if (g === undefined) {
    g = { n: 0 }
    generations.set(world, g)
    const next = () => { g.n++ }
    // first of the world's listeners: mineflayer forwards these events to the bot's listeners
    // (the path keeping reads the changed cells in its blockUpdate listener), which must read
    // the world as it is now
    world.prependListener('blockUpdate', next)
    world.prependListener('chunkColumnLoad', next)
    world.prependListener('chunkColumnUnload', next)
  }
  return g
}

/**
 * What ``owner`` read of each cell of ``world`` since the world last changed (a Map by
 * cellKey, at most ``max`` cells), emptied at its next use after a block changed or a column
 * was loaded or unloaded, so a read from it gives what the world holds now.
 */
function cellMemo (owner, world, max) {
  const g = generationOf(world)
  let m = owner.pianoCellMemo
  if (m === undefined || m.world !== world) {
    m = owner.pianoCellMemo = { world, n: g.n, blocks: new Map() }
  } else if (m.n !== g.n || m.blocks.size >= max) {
    m.blocks.clear()
    m.n = g.n
  }
  return m.blocks
}

/**
 * What the pathfinder's getBlock adds to a block (climbable, safe, physical, replaceable,
 * liquid, canFall, openable, and how far its shapes rise above its floor), worked out once
 * per state id for ``movements`` (its block sets are filled in its constructor and not
 * changed after), as a prototype over the state's light block.
 */
function movementInfo (movements, bot, stateId) {
  let table = movements.pianoInfo
  if (!table || table.registry !== bot.registry) table = movements.pianoInfo = { registry: bot.registry, infos: [] }
  let info = table.infos[stateId]
  if (info !== undefined) return info
  const t = tableOf(bot.registry)
  let proto = t.protos[stateId]
  if (proto === undefined) {
    proto = t.Block.fromStateId(stateId, 0)
    t.protos[stateId] = proto
  }
  info = Object.create(proto)
  info.climbable = movements.climbables.has(proto.type)
  info.safe = (proto.boundingBox === 'empty' || info.climbable || movements.carpets.has(proto.type)) && !movements.blocksToAvoid.has(proto.type)
  info.physical = proto.boundingBox === 'block' && !movements.fences.has(proto.type)
  info.replaceable = movements.replaceables.has(proto.type) && !info.physical
  info.liquid = movements.liquids.has(proto.type)
  info.canFall = movements.gravityBlocks.has(proto.type)
  info.openable = movements.openable.has(proto.type)
  let top = 0
  for (const shape of proto.shapes) top = Math.max(top, shape[4])
  info.pianoTop = top
  table.infos[stateId] = info
  return info
}

// The cells other entities stand in, for the path search's entity costs: mineflayer-pathfinder
// keys them by a string built at every neighbour it weighs; here by a number (exact within
// 32768 blocks of the origin and y -512..511, where the string is kept for anything beyond).
const cellKey = (x, y, z) => (x + 32768) * 67108864 + (z + 32768) * 1024 + (y + 512)
const inGrid = (x, y, z) => x >= -32768 && x < 32768 && z >= -32768 && z < 32768 && y >= -512 && y < 512

function patchEntityCells (Movements) {
  Movements.prototype.clearCollisionIndex = function () {
    this.entityIntersections = {}
    this.pianoCells = new Map()
  }
  Movements.prototype.updateCollisionIndex = function () {
    if (!this.pianoCells) this.pianoCells = new Map()
    for (const ent of Object.values(this.bot.entities)) {
      if (ent === this.bot.entity) continue
      const avoidedEnt = this.entitiesToAvoid.has(ent.name)
      if (avoidedEnt || !this.passableEntities.has(ent.name)) {
        const entSquareRadius = ent.width / 2.0
        const minY = Math.floor(ent.position.y)
        const maxY = Math.ceil(ent.position.y + ent.height)
        const minX = Math.floor(ent.position.x - entSquareRadius)
        const maxX = Math.ceil(ent.position.x + entSquareRadius)
        const minZ = Math.floor(ent.position.z - entSquareRadius)
        const maxZ = Math.ceil(ent.position.z + entSquareRadius)
        const cost = avoidedEnt ? 100 : 1 // more entities, more weight
        for (let y = minY; y < maxY; y++) {
          for (let x = minX; x < maxX; x++) {
            for (let z = minZ; z < maxZ; z++) {
              if (inGrid(x, y, z)) {
                const key = cellKey(x, y, z)
                this.pianoCells.set(key, (this.pianoCells.get(key) ?? 0) + cost)
              } else {
                this.entityIntersections[`${x},${y},${z}`] = (this.entityIntersections[`${x},${y},${z}`] ?? 0) + cost
              }
            }
          }
        }
      }
    }
  }
  Movements.prototype.getNumEntitiesAt = function (pos, dx, dy, dz) {
    if (this.allowEntityDetection === false) return 0
    if (!pos) return 0
    const y = pos.y + dy
    const x = pos.x + dx
    const z = pos.z + dz
    if (inGrid(x, y, z) && Number.isInteger(x) && Number.isInteger(y) && Number.isInteger(z)) {
      return this.pianoCells ? (this.pianoCells.get(cellKey(x, y, z)) ?? 0) : 0
    }
    return this.entityIntersections[`${x},${y},${z}`] ?? 0
  }
}

module.exports = { lightBlockAt, lightWorld, lightMovements }
