'use strict'
// Chests (single, 27 slots) and ender chests (27 slots per player) that store
// items, per block position, persisted in piano_state.json. Several players
// may have the same chest open; each sees the others' changes. Breaking a
// chest drops its contents.
//
// serv.piano.containers: get(key, type, size), find(x, y, z), key(x, y, z),
// remove(key, dropAt), serialize(container)

const Vec3 = require('vec3').Vec3

module.exports.server = function (serv) {
  const registry = serv.registry
  const W = serv.piano.windows
  const { Item } = W
  const state = serv.piano.state
  const live = new Map() // key -> Container

  function toJson (item) {
    if (!item) return null
    const out = { name: registry.items[item.type].name, count: item.count }
    if (item.nbt) out.nbt = item.nbt
    return out
  }
  function fromJson (j) {
    if (!j || !registry.itemsByName[j.name]) return null
    return new Item(registry.itemsByName[j.name].id, j.count, undefined, j.nbt)
  }

  class Container {
    constructor (key, type, size, saved) {
      this.key = key
      this.type = type
      this.size = size
      this.slots = new Array(size).fill(null)
      this.viewers = new Set() // menus
      this.data = {} // extra state (furnace progress)
      if (saved) {
        for (const [i, j] of Object.entries(saved.slots || {})) {
          if (+i < size) this.slots[+i] = fromJson(j)
        }
        this.data = saved.data || {}
      }
    }

    get (i) { return this.slots[i] || null }

    set (i, item, fromMenu = null) {
      this.slots[i] = W.clone(item)
      for (const menu of this.viewers) {
        if (menu !== fromMenu && menu.player.openMenu === menu) W.sendSlot(menu.player, menu.id, i, this.slots[i])
      }
      this.persist()
    }

    persist () {
      const slots = {}
      this.slots.forEach((it, i) => { if (it) slots[i] = toJson(it) })
      state.containers[this.key] = { type: this.type, slots, data: this.data }
      serv.piano.markDirty()
    }

    items () {
      return this.slots.map((it, slot) => it && { slot, ...toJson(it) }).filter(Boolean)
    }
  }

  const containers = {
    key: (x, y, z) => `${Math.floor(x)},${Math.floor(y)},${Math.floor(z)}`,
    get (key, type, size) {
      let c = live.get(key)
      if (!c) {
        c = new Container(key, type, size, state.containers[key])
        live.set(key, c)
      }
      return c
    },
    // stored container at a position (without creating one), or null
    find (x, y, z) {
      const key = containers.key(x, y, z)
      if (live.has(key)) return live.get(key)
      const saved = state.containers[key]
      if (!saved) return null
      return containers.get(key, saved.type, saved.type === 'furnace' ? 3 : 27)
    },
    remove (key, player) {
      const c = containers.find(...key.split(',').map(Number))
      if (!c) return
      for (const menu of [...c.viewers]) {
        if (menu.player.openMenu === menu) {
          serv.piano.windows.closeMenu(menu.player)
          menu.player._client.write('close_window', { windowId: menu.id })
        }
      }
      const [x, y, z] = key.split(',').map(Number)
      for (const it of c.slots) {
        if (!it) continue
        serv.spawnObject(registry.entitiesByName.item.id, player ? player.world : serv.overworld, new Vec3(x + 0.5, y + 0.5, z + 0.5), {
          velocity: new Vec3(Math.random() * 2 - 1, 2, Math.random() * 2 - 1),
          itemId: it.type,
          itemCount: it.count,
          pickupTime: 500,
          deathTime: 5 * 60 * 1000
        })
      }
      live.delete(key)
      delete state.containers[key]
      serv.piano.markDirty()
    },
    toJson,
    fromJson,
    Container
  }
  serv.piano.containers = containers

  class ChestMenu extends W.Menu {
    constructor (player, container, title, position) {
      super(player, { inventoryType: 'minecraft:generic_9x3', title, containerSize: 27 })
      this.container = container
      this.position = position
      container.viewers.add(this)
      this.lid(1)
    }

    lid (delta) {
      if (!this.position) return
      const n = [...this.container.viewers].filter(m => m.player.openMenu === m || m === this).length
      serv.setBlockAction(this.player.world, this.position, 1, Math.max(0, delta > 0 ? n : n - 1))
    }

    getContainer (i) { return this.container.get(i) }
    setContainer (i, item) { this.container.set(i, item, this) }
    onClose () {
      this.lid(-1)
      this.container.viewers.delete(this)
    }
  }

  function blockedAbove (block) {
    return block && block.boundingBox === 'block' && !block.transparent
  }

  serv.once('pluginsReady', () => {
    serv.onBlockInteraction('chest', async ({ block, player }) => {
      const held = player.inventory.slots[36 + player.heldItemSlot]
      if (player.crouching && held) return false
      const above = await player.world.getBlock(block.position.offset(0, 1, 0))
      if (blockedAbove(above)) return true
      const p = block.position
      const c = containers.get(containers.key(p.x, p.y, p.z), 'chest', 27)
      W.open(player, new ChestMenu(player, c, { translate: 'container.chest' }, p.clone()))
      return true
    })
    serv.onBlockInteraction('ender_chest', async ({ block, player }) => {
      const held = player.inventory.slots[36 + player.heldItemSlot]
      if (player.crouching && held) return false
      const c = containers.get('ender:' + player.uuid, 'ender_chest', 27)
      W.open(player, new ChestMenu(player, c, { translate: 'container.enderchest' }, null))
      return true
    })
  })

  serv.piano.ChestMenu = ChestMenu
}

module.exports.player = function (player, serv) {
  const chestId = serv.registry.blocksByName.chest.id
  const furnaceId = serv.registry.blocksByName.furnace.id
  player.on('dug', ({ position, block }, cancelled) => {
    if (cancelled || !block) return
    if (block.type !== chestId && block.type !== furnaceId) return
    serv.piano.containers.remove(serv.piano.containers.key(position.x, position.y, position.z), player)
  })
}
