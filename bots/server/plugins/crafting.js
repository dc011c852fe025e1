'use strict'
// Crafting: the 2x2 grid of the player inventory (window 0, slots 1-4) and the
// 3x3 crafting table (inventory type minecraft:crafting, slots 1-9), with the
// recipes of minecraft-data (shaped, mirrored shaped, shapeless). The result
// slot (0) is recomputed after every change of the grid; taking it consumes
// one of each ingredient (buckets and bottles leave their container).

module.exports.server = function (serv) {
  const registry = serv.registry
  const W = serv.piano.windows
  const { Item } = W

  const REMAINDERS = {
    milk_bucket: 'bucket',
    water_bucket: 'bucket',
    lava_bucket: 'bucket',
    honey_bottle: 'glass_bottle',
    dragon_breath: 'glass_bottle'
  }

  // ---- recipes ----
  const idOf = (v) => {
    if (v === null || v === undefined) return -1
    if (typeof v === 'number') return v
    if (Array.isArray(v)) return v.map(idOf)
    if (typeof v === 'object') return v.id ?? -1
    return -1
  }
  const shaped = [] // { rows: [[id|[ids]|-1]], w, h, result, outShape }
  const shapeless = [] // { ingredients: [id|[ids]], result }
  for (const list of Object.values(registry.recipes)) {
    for (const r of list) {
      const result = { id: r.result.id, count: r.result.count || 1 }
      if (r.inShape) {
        const rows = r.inShape.map(row => row.map(idOf))
        shaped.push({ rows, h: rows.length, w: Math.max(...rows.map(row => row.length)), result, outShape: r.outShape })
      } else if (r.ingredients) {
        shapeless.push({ ingredients: r.ingredients.map(idOf), result })
      }
    }
  }

  // minecraft-data lists a recipe of the planks tag once per kind of planks (a table from 4
  // oak planks, from 4 birch planks, ...); vanilla takes any planks, mixed. Where the recipes
  // of one result want two or more kinds of planks at a place, every kind is accepted there
  // (stairs, doors and boats keep their own planks: one kind per result).
  const PLANKS = registry.itemsArray.filter(i => i.name.endsWith('_planks')).map(i => i.id)
  const isPlank = new Set(PLANKS)
  const byResult = new Map()
  for (const r of shaped) {
    const key = `${r.result.id}:${r.w}x${r.h}`
    if (!byResult.has(key)) byResult.set(key, [])
    byResult.get(key).push(r)
  }
  for (const group of byResult.values()) {
    const kinds = new Set()
    for (const r of group) for (const row of r.rows) for (const w of row) for (const id of [w].flat()) if (isPlank.has(id)) kinds.add(id)
    if (kinds.size < 2) continue
    for (const r of group) r.rows = r.rows.map(row => row.map(w => ([w].flat().some(id => isPlank.has(id)) ? PLANKS : w)))
  }
  for (const r of shapeless) {
    const sameResult = shapeless.filter(o => o.result.id === r.result.id)
    const kinds = new Set(sameResult.flatMap(o => o.ingredients.flat()).filter(id => isPlank.has(id)))
    if (kinds.size >= 2) r.ingredients = r.ingredients.map(w => ([w].flat().some(id => isPlank.has(id)) ? PLANKS : w))
  }

  const accepts = (want, id) => Array.isArray(want) ? want.includes(id) : want === id

  // grid: array of item types (-1 = empty), gw x gw
  function match (types, gw) {
    let minX = gw; let minY = gw; let maxX = -1; let maxY = -1
    const present = []
    for (let y = 0; y < gw; y++) {
      for (let x = 0; x < gw; x++) {
        const t = types[y * gw + x]
        if (t !== -1) {
          present.push(t)
          minX = Math.min(minX, x); maxX = Math.max(maxX, x)
          minY = Math.min(minY, y); maxY = Math.max(maxY, y)
        }
      }
    }
    if (!present.length) return null
    const w = maxX - minX + 1
    const h = maxY - minY + 1
    const at = (x, y) => types[(minY + y) * gw + minX + x]
    for (const r of shaped) {
      if (r.w !== w || r.h !== h) continue
      for (const mirror of [false, true]) {
        let ok = true
        for (let y = 0; y < h && ok; y++) {
          for (let x = 0; x < w && ok; x++) {
            const row = r.rows[y]
            const want = row[mirror ? w - 1 - x : x] ?? -1
            const got = at(x, y)
            if (want === -1 ? got !== -1 : !accepts(want, got)) ok = false
          }
        }
        if (ok) return r
      }
    }
    for (const r of shapeless) {
      if (r.ingredients.length !== present.length) continue
      const left = present.slice()
      let ok = true
      for (const want of r.ingredients) {
        const i = left.findIndex(t => accepts(want, t))
        if (i < 0) { ok = false; break }
        left.splice(i, 1)
      }
      if (ok) return r
    }
    return null
  }

  const cache = new Map()
  function resultFor (items, gw) {
    const types = items.map(it => (it ? it.type : -1))
    const key = gw + ':' + types.join(',')
    let recipe = cache.get(key)
    if (recipe === undefined) {
      recipe = match(types, gw)
      if (cache.size > 5000) cache.clear()
      cache.set(key, recipe)
    }
    return recipe
  }

  function gridItems (read, gw) {
    const out = []
    for (let i = 1; i <= gw * gw; i++) out.push(read(i))
    return out
  }

  function makeResult (recipe) {
    return recipe ? new Item(recipe.result.id, recipe.result.count) : null
  }

  const crafting = {
    match: (items, gw) => resultFor(items, gw),
    // take the result of a crafting menu inside a staged click
    takeResult (menu, txn, slot, gw) {
      const recipe = resultFor(gridItems(i => txn.get(i), gw), gw)
      if (!recipe) return null
      for (let i = 1; i <= gw * gw; i++) {
        const it = txn.get(i)
        if (!it) continue
        const name = registry.items[it.type]?.name
        it.count -= 1
        if (it.count > 0) txn.set(i, it)
        else if (REMAINDERS[name]) txn.set(i, new Item(registry.itemsByName[REMAINDERS[name]].id, 1))
        else txn.set(i, null)
      }
      txn.set(slot, makeResult(resultFor(gridItems(i => txn.get(i), gw), gw)))
      return makeResult(recipe)
    },
    // menu.deferResult: the click's answer sends the result slot itself (1.17+, windows.js)
    refreshResult (menu, gw) {
      const result = makeResult(resultFor(gridItems(i => menu.get(i), gw), gw))
      if (W.equalStack(menu.get(0), result)) return
      if (menu.deferResult) menu.setSilent(0, result)
      else menu.set(0, result)
    }
  }
  serv.piano.crafting = crafting

  // ---- the crafting table window ----
  class CraftingMenu extends W.Menu {
    constructor (player, position) {
      super(player, { inventoryType: 'minecraft:crafting', title: { translate: 'container.crafting' }, containerSize: 10 })
      this.grid = new Array(10).fill(null)
      this.position = position
    }

    getContainer (i) { return this.grid[i] }
    setContainer (i, item) { this.grid[i] = W.clone(item) }
    isTakeOnly (i) { return i === 0 }
    mayPlace (i, item) { return i !== 0 }
    quickMoveTargets (i, item) {
      if (i === 0) return [[10, 46, true]]
      if (i < 10) return [[10, 46, false]]
      if (i < 37) return [[37, 46, false]]
      return [[10, 37, false]]
    }

    takeResult (txn, i) { return crafting.takeResult(this, txn, i, 3) }
    afterCommit (changed) {
      if (changed.some(i => i >= 1 && i <= 9)) crafting.refreshResult(this, 3)
    }

    onClose () {
      for (let i = 1; i <= 9; i++) {
        const it = this.grid[i]
        this.grid[i] = null
        if (!it) continue
        const left = W.addToInventory(this.player, it)
        if (left > 0) { const d = W.clone(it); d.count = left; W.dropItem(this.player, d) }
      }
      this.grid[0] = null
    }
  }

  serv.once('pluginsReady', () => {
    serv.onBlockInteraction('crafting_table', ({ block, player }) => {
      const held = player.inventory.slots[36 + player.heldItemSlot]
      if (player.crouching && held) return false
      W.open(player, new CraftingMenu(player, block.position))
      return true
    })
  })
}
