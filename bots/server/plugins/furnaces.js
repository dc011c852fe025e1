'use strict'
// Furnaces: input (slot 0), fuel (1), output (2, take only). Smelting burns
// fuel and advances 1 progress per tick (200 ticks per item by default,
// settings.piano.furnaceCookTicks), updating the window properties (fuel,
// progress) for anyone watching and the block's `lit` state. Contents and
// progress persist with the other containers. Works while nobody watches.

const SMELT = {
  iron_ore: 'iron_ingot',
  gold_ore: 'gold_ingot',
  // 1.17+: ores drop raw metal; copper and deepslate ores (names a version lacks never match)
  raw_iron: 'iron_ingot',
  raw_gold: 'gold_ingot',
  raw_copper: 'copper_ingot',
  copper_ore: 'copper_ingot',
  deepslate_iron_ore: 'iron_ingot',
  deepslate_gold_ore: 'gold_ingot',
  deepslate_copper_ore: 'copper_ingot',
  deepslate_diamond_ore: 'diamond',
  deepslate_coal_ore: 'coal',
  deepslate_lapis_ore: 'lapis_lazuli',
  deepslate_redstone_ore: 'redstone',
  deepslate_emerald_ore: 'emerald',
  nether_gold_ore: 'gold_ingot',
  diamond_ore: 'diamond',
  coal_ore: 'coal',
  lapis_ore: 'lapis_lazuli',
  redstone_ore: 'redstone',
  emerald_ore: 'emerald',
  nether_quartz_ore: 'quartz',
  ancient_debris: 'netherite_scrap',
  beef: 'cooked_beef',
  porkchop: 'cooked_porkchop',
  chicken: 'cooked_chicken',
  mutton: 'cooked_mutton',
  rabbit: 'cooked_rabbit',
  cod: 'cooked_cod',
  salmon: 'cooked_salmon',
  potato: 'baked_potato',
  kelp: 'dried_kelp',
  sand: 'glass',
  red_sand: 'glass',
  cobblestone: 'stone',
  stone: 'smooth_stone',
  sandstone: 'smooth_sandstone',
  stone_bricks: 'cracked_stone_bricks',
  clay_ball: 'brick',
  clay: 'terracotta',
  netherrack: 'nether_brick',
  cactus: 'green_dye',
  wet_sponge: 'sponge',
  chorus_fruit: 'popped_chorus_fruit'
}

// burn time in ticks
const FUEL = {
  coal: 1600,
  charcoal: 1600,
  coal_block: 16000,
  lava_bucket: 20000,
  blaze_rod: 2400,
  dried_kelp_block: 4001,
  stick: 100,
  bowl: 100,
  bamboo: 50,
  scaffolding: 400,
  crafting_table: 300,
  chest: 300,
  trapped_chest: 300,
  bookshelf: 300,
  ladder: 300,
  jukebox: 300,
  note_block: 300,
  barrel: 300,
  lectern: 300,
  composter: 300,
  wooden_sword: 200,
  wooden_pickaxe: 200,
  wooden_axe: 200,
  wooden_shovel: 200,
  wooden_hoe: 200,
  bow: 300,
  fishing_rod: 300,
  crossbow: 300
}

function fuelTicks (name) {
  if (FUEL[name]) return FUEL[name]
  if (/_(log|wood|planks|fence|fence_gate|pressure_plate|trapdoor|door)$|^stripped_/.test(name)) {
    if (/^(crimson|warped)_/.test(name)) return 0
    return /_door$/.test(name) ? 200 : 300
  }
  if (/_slab$/.test(name) && /^(oak|spruce|birch|jungle|acacia|dark_oak)_/.test(name)) return 150
  if (/_(sapling|button)$/.test(name)) return 100
  if (/_wool$/.test(name)) return 100
  if (/_carpet$/.test(name)) return 67
  if (/_boat$/.test(name)) return 1200
  if (/_sign$/.test(name)) return 200
  return 0
}

function smeltResult (name) {
  if (SMELT[name]) return SMELT[name]
  if (/_(log|wood)$/.test(name) && !/^(crimson|warped)_/.test(name)) return 'charcoal'
  return null
}

module.exports.SMELT = SMELT
module.exports.fuelTicks = fuelTicks
module.exports.smeltResult = smeltResult

module.exports.server = function (serv, settings) {
  const registry = serv.registry
  const W = serv.piano.windows
  const { Item } = W
  const C = serv.piano.containers
  const cookTicks = settings.piano?.furnaceCookTicks || 200
  const nameOf = (item) => (item ? registry.items[item.type]?.name : null)
  const active = new Map() // key -> { container, position, world }

  function canSmelt (c) {
    const input = c.get(0)
    if (!input) return null
    const out = smeltResult(nameOf(input))
    if (!out || !registry.itemsByName[out]) return null
    const result = new Item(registry.itemsByName[out].id, 1)
    const cur = c.get(2)
    if (cur && (!W.sameItem(cur, result) || cur.count + 1 > W.maxStack(cur))) return null
    return result
  }

  function sendProps (c, props) {
    for (const menu of c.viewers) {
      if (menu.player.openMenu !== menu) continue
      for (const [property, value] of props) {
        menu.player._client.write('craft_progress_bar', { windowId: menu.id, property, value })
      }
    }
  }

  function allProps (d) {
    return [[0, d.burn || 0], [1, d.burnMax || 0], [2, d.cook || 0], [3, cookTicks]]
  }

  async function setLit (entry, lit) {
    const p = entry.position
    if (!p) return
    const block = await entry.world.getBlock(p)
    if (!block || block.name !== 'furnace') return
    const props = block.getProperties()
    if (String(props.lit) === String(lit)) return
    const state = serv.piano.stateIds.get('furnace', { facing: props.facing, lit })
    serv.setBlock(entry.world, p, state)
  }

  function tickOne (key, entry) {
    const c = entry.container
    const d = c.data
    d.burn = d.burn || 0
    d.cook = d.cook || 0
    const wasBurning = d.burn > 0
    if (d.burn > 0) d.burn--
    let result = canSmelt(c)
    let changed = false
    if (d.burn === 0 && result) {
      const fuel = c.get(1)
      const t = fuel ? fuelTicks(nameOf(fuel)) : 0
      if (t > 0) {
        d.burn = d.burnMax = t
        const name = nameOf(fuel)
        const next = W.clone(fuel)
        next.count -= 1
        if (next.count > 0) c.set(1, next)
        else c.set(1, name === 'lava_bucket' ? new Item(registry.itemsByName.bucket.id, 1) : null)
        changed = true
      }
    }
    if (d.burn > 0 && result) {
      d.cook++
      if (d.cook >= cookTicks) {
        d.cook = 0
        const input = W.clone(c.get(0))
        input.count -= 1
        c.set(0, input.count > 0 ? input : null)
        const cur = c.get(2)
        if (cur) { const o = W.clone(cur); o.count += 1; c.set(2, o) } else c.set(2, result)
        result = canSmelt(c)
      }
    } else if (d.cook > 0) {
      d.cook = Math.max(0, d.cook - 2)
    }
    const burning = d.burn > 0
    if (burning !== wasBurning || changed) setLit(entry, burning).catch(() => {})
    if (c.viewers.size) sendProps(c, allProps(d))
    if (serv.tickCount % 20 === 0 || changed) c.persist()
    if (!burning && d.cook === 0) {
      active.delete(key)
      c.persist()
    }
  }

  function activate (container, world, position) {
    if (!active.has(container.key)) active.set(container.key, { container, world, position })
  }

  serv.on('tick', () => {
    for (const [key, entry] of active) {
      try { tickOne(key, entry) } catch (err) { serv.warn?.(`furnace ${key}: ${err}`); active.delete(key) }
    }
  })

  class FurnaceMenu extends W.Menu {
    constructor (player, container, position) {
      super(player, { inventoryType: 'minecraft:furnace', title: { translate: 'container.furnace' }, containerSize: 3 })
      this.container = container
      this.position = position
      container.viewers.add(this)
    }

    getContainer (i) { return this.container.get(i) }
    setContainer (i, item) {
      this.container.set(i, item, this)
      activate(this.container, this.player.world, this.position)
    }

    isTakeOnly (i) { return i === 2 }
    mayPlace (i, item) {
      if (i === 2) return false
      if (i === 1) return fuelTicks(nameOf(item)) > 0 || nameOf(item) === 'bucket'
      return true
    }

    quickMoveTargets (i, item) {
      if (i <= 2) return [[3, 39, i === 2]]
      const name = nameOf(item)
      if (smeltResult(name)) return [[0, 1, false]]
      if (fuelTicks(name) > 0) return [[1, 2, false]]
      if (i < 30) return [[30, 39, false]]
      return [[3, 30, false]]
    }

    onClose () { this.container.viewers.delete(this) }
  }

  serv.once('pluginsReady', () => {
    const { StateIds } = require('../generator/plan')
    serv.piano.stateIds = serv.piano.stateIds || new StateIds(registry)
    serv.onBlockInteraction('furnace', ({ block, player }) => {
      const held = player.inventory.slots[36 + player.heldItemSlot]
      if (player.crouching && held) return false
      const p = block.position
      const c = C.get(C.key(p.x, p.y, p.z), 'furnace', 3)
      const menu = W.open(player, new FurnaceMenu(player, c, p.clone()))
      for (const [property, value] of allProps(c.data)) {
        player._client.write('craft_progress_bar', { windowId: menu.id, property, value })
      }
      activate(c, player.world, p.clone())
      return true
    })
    // furnaces that were burning when the server stopped continue
    serv.piano.onWorldReady(async () => {
      for (const [key, saved] of Object.entries(serv.piano.state.containers)) {
        if (saved.type !== 'furnace') continue
        const [x, y, z] = key.split(',').map(Number)
        const c = C.find(x, y, z)
        if (c && (c.data.burn > 0 || (c.get(0) && c.get(1)))) activate(c, serv.overworld, new (require('vec3').Vec3)(x, y, z))
      }
    })
  })

  serv.piano.furnaces = { smeltResult, fuelTicks, cookTicks }
}
