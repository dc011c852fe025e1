'use strict'
// What a broken block drops, close to vanilla 1.16: stone -> cobblestone,
// coal_ore -> coal, iron_ore -> iron_ore, diamond_ore -> diamond, leaves ->
// a sapling / sticks / an apple sometimes, grass -> seeds sometimes, ripe
// crops -> produce + seeds; blocks that need a tool (minecraft-data
// harvestTools) drop nothing without it. Also: picking up an item entity
// adds its whole count (flying-squid added 1 whatever the stack).

const Vec3 = require('vec3').Vec3
const { itemName } = require('../mc_names')

module.exports.server = function (serv) {
  const registry = serv.registry
  const items = registry.itemsByName

  const rand = () => Math.random()
  const between = (a, b) => a + Math.floor(rand() * (b - a + 1))
  const one = (name, count = 1) => (count > 0 && items[name] ? [{ id: items[name].id, count }] : [])

  const SAPLING = { oak: 1 / 20, birch: 1 / 20, spruce: 1 / 20, acacia: 1 / 20, dark_oak: 1 / 20, jungle: 1 / 40 }

  function age (block) {
    try { return Number(block.getProperties().age) } catch (e) { return 0 }
  }

  function specialDrops (block, heldName) {
    const name = block.name
    const shears = heldName === 'shears'
    let m
    if ((m = /^(\w+)_leaves$/.exec(name))) {
      if (shears) return one(name)
      const wood = m[1]
      const out = []
      if (SAPLING[wood] && rand() < SAPLING[wood]) out.push(...one(wood + '_sapling'))
      if (rand() < 1 / 50) out.push(...one('stick', between(1, 2)))
      if ((wood === 'oak' || wood === 'dark_oak') && rand() < 1 / 200) out.push(...one('apple'))
      return out
    }
    if (name === 'grass' || name === 'short_grass' || name === 'fern' || name === 'tall_grass' || name === 'large_fern') {
      if (shears) return one(name === 'tall_grass' ? itemName(registry, 'grass') : name)
      return rand() < 1 / 8 ? one('wheat_seeds') : []
    }
    switch (name) {
      case 'stone': return one('cobblestone')
      case 'grass_block': case 'farmland': case 'grass_path': case 'dirt_path': case 'mycelium': case 'podzol': return one('dirt')
      case 'gravel': return rand() < 0.1 ? one('flint') : one('gravel')
      case 'coal_ore': return one('coal')
      case 'diamond_ore': return one('diamond')
      case 'emerald_ore': return one('emerald')
      case 'lapis_ore': return one('lapis_lazuli', between(4, 9))
      case 'redstone_ore': return one('redstone', between(4, 5))
      case 'nether_quartz_ore': return one('quartz')
      case 'nether_gold_ore': return one('gold_nugget', between(2, 6))
      case 'glass': case 'glass_pane': case 'ice': case 'spawner': case 'infested_stone': return []
      case 'bookshelf': return one('book', 3)
      case 'clay': return one('clay_ball', 4)
      case 'snow_block': return one('snowball', 4)
      case 'glowstone': return one('glowstone_dust', between(2, 4))
      case 'melon': return one('melon_slice', between(3, 7))
      case 'wheat': return age(block) >= 7 ? [...one('wheat'), ...one('wheat_seeds', between(1, 4))] : one('wheat_seeds')
      case 'carrots': return one('carrot', age(block) >= 7 ? between(2, 5) : 1)
      case 'potatoes': return age(block) >= 7
        ? [...one('potato', between(2, 5)), ...(rand() < 0.02 ? one('poisonous_potato') : [])]
        : one('potato')
      case 'beetroots': return age(block) >= 3 ? [...one('beetroot'), ...one('beetroot_seeds', between(1, 4))] : one('beetroot_seeds')
      case 'dead_bush': return shears ? one('dead_bush') : one('stick', between(0, 2))
      case 'cobweb': return shears ? one('cobweb') : one('string')
    }
    return null
  }

  // 1.17+ metal ores without fortune drop as vanilla's loot tables say: minecraft-data's range
  // for raw iron and raw gold is 1-2 (an iron ore dropped 2 raw iron at 1.20.4), raw copper 2-5
  const RAW_METAL = { raw_iron: [1, 1], raw_gold: [1, 1], raw_copper: [2, 5] }

  function genericDrops (block) {
    const loot = registry.blockLoot?.[block.name]
    if (!loot) {
      const id = block.drops?.[0]
      const itemId = typeof id === 'object' ? id?.drop?.id ?? id?.id : id
      return itemId !== undefined && registry.items[itemId] ? [{ id: itemId, count: 1 }] : []
    }
    const out = []
    for (const d of loot.drops) {
      if (d.silkTouch) continue
      if (d.blockAge !== undefined && age(block) !== d.blockAge) continue
      const item = items[d.item]
      if (!item) continue
      if (d.dropChance !== undefined && d.dropChance < 0.5 && rand() >= d.dropChance) continue
      const [lo, hi] = RAW_METAL[d.item] || d.stackSizeRange || [1, 1]
      const count = between(Math.max(0, lo), Math.max(lo, hi))
      if (count > 0) out.push({ id: item.id, count })
    }
    return out
  }

  // whether `held` (an Item or null) harvests `block`: without its tool a block drops nothing
  const harvests = (block, held) => !block.harvestTools || !!(held && block.harvestTools[held.type])

  // what `block` drops when broken with `held` (an Item or null)
  function dropsFor (block, held) {
    const heldName = held ? registry.items[held.type]?.name : null
    if (!harvests(block, held)) return []
    const silk = held?.enchants?.some?.(e => e.name === 'silk_touch')
    if (silk && items[block.name]) return one(block.name)
    const special = specialDrops(block, heldName)
    return special !== null ? special : genericDrops(block)
  }

  serv.piano.drops = { dropsFor, harvests }
}

module.exports.player = function (player, serv) {
  const W = () => serv.piano.windows

  // the first 50 blocks a server saw broken without their tool, in its log
  function noteToolless (block, held) {
    serv.pianoToolNotes = (serv.pianoToolNotes || 0) + 1
    if (serv.pianoToolNotes > 50) return
    const name = held ? serv.registry.items[held.type]?.name : 'nothing'
    console.log(`[piano] ${player.username} broke ${block.name} holding ${name} in slot ${player.heldItemSlot}: no drops without its tool`)
  }

  player.on('dug_cancel', (data) => {
    if (!data || !Array.isArray(data.drops)) return
    const held = player.inventory.slots[36 + player.heldItemSlot]
    const drops = serv.piano.drops.dropsFor(data.block, held)
    // what the server saw in the hand decides (the client may believe it held the tool)
    if (!serv.piano.drops.harvests(data.block, held)) noteToolless(data.block, held)
    const template = data.drops[0] || {
      blockDropPosition: data.position.offset(0.5, 0.5, 0.5),
      blockDropWorld: player.world,
      blockDropDamage: 0,
      blockDropPickup: 500,
      blockDropDeath: 60 * 5 * 1000
    }
    data.drops.length = 0 // digging.js drops exactly the entries of this array
    for (const d of drops) {
      data.drops.push({
        ...template,
        blockDropVelocity: new Vec3(Math.random() * 2 - 1, 2 + Math.random(), Math.random() * 2 - 1),
        blockDropId: d.id,
        blockDropCount: d.count
      })
    }
  })

  player.once('asap', () => {
    player.collect = (entity) => {
      if (entity.itemId === undefined || entity.pianoCollected) return
      const count = entity.itemCount || 1
      const item = new (W().Item)(entity.itemId, count)
      const left = W().addToInventory(player, item)
      if (left === count) return // no room
      entity._writeOthersNearby('collect', {
        collectedEntityId: entity.id,
        collectorEntityId: player.id,
        pickupItemCount: count - left
      })
      if (left > 0) {
        entity.itemCount = left
        return
      }
      entity.pianoCollected = true
      player.playSoundAtSelf?.('entity.item.pickup')
      entity.destroy()
    }
  })

  // flying-squid's drop key (Q) changes the held stack without telling the client
  player._client.on('block_dig', ({ status }) => {
    if (status !== 3 && status !== 4) return
    setImmediate(() => {
      const slot = 36 + player.heldItemSlot
      const it = player.inventory.slots[slot]
      W().setInvSlot(player, slot, it && it.count > 0 ? it : null)
    })
  })
}
