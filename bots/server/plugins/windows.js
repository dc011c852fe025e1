'use strict'
// Windows and the 1.16.5 click protocol (window_click + transaction), in
// place of flying-squid's inventory.js click handling, which applied every
// click to the player inventory and never confirmed a transaction. From 1.17
// the state-id protocol instead (handleClickStateId, ../click_sync.js).
//
// A window is a Menu (see below): a list of slots, some backed by the
// player's inventory, some by a container (chest, furnace) or by the menu
// itself (crafting grid). A click is simulated on a staged copy, answered
// with a transaction packet (accepted when the client's view of the clicked
// slot matched ours, as vanilla does), then committed; every changed slot
// is then sent with set_slot so any client model converges on ours.
//
// API for other plugins (serv.piano.windows):
//   Menu                        base class for container windows
//   open(player, menu)          send open_window + contents
//   addToInventory(player, item) -> leftover count (merges, hotbar first)
//   dropItem(player, item)      throw an item entity from the player
//   setInvSlot(player, p, item) change an inventory slot and tell the client
//   sameItem(a, b), maxStack(item), clone(item)

const Vec3 = require('vec3').Vec3
const windowsLib = require('prismarine-windows')
const playerDat = require('flying-squid/src/lib/playerDat')
const { nbtText } = require('./versions')
const clientView = require('../click_sync')

// vanilla's container stillValid: the player within 8 blocks of the block's centre
const STILL_VALID_SQ = 64

module.exports.server = function (serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  const itemEntityType = registry.entitiesByName.item.id
  const pwindows = windowsLib(registry)
  // 1.17+: no transaction packets, state ids instead (click_sync.js)
  const stateIds = serv.supportFeature('stateIdUsed')

  // What mineflayer (prismarine-windows) will predict for a click: we only
  // send set_slot for slots where our result differs. Sending every changed
  // slot races mineflayer's own bookkeeping (its click objects go stale).
  function predict (menu, player, click) {
    try {
      const type = menu.id === 0 ? 'minecraft:inventory' : menu.inventoryType
      const w = pwindows.createWindow(menu.id, type, '', menu.containerSize)
      if (!w || w.slots.length !== menu.size) return null
      for (let i = 0; i < menu.size; i++) {
        const it = clone(menu.get(i))
        if (it) it.slot = i
        w.slots[i] = it
      }
      w.selectedItem = clone(player.cursor)
      w.acceptClick({ ...click, item: click.slot >= 0 && click.slot < menu.size ? w.slots[click.slot] : null })
      return w
    } catch (err) {
      return null
    }
  }

  function clone (item) {
    if (!item || item.count <= 0) return null
    const c = new Item(item.type, item.count, item.metadata, item.nbt)
    return c
  }
  function sameItem (a, b) {
    if (!a || !b) return false
    return a.type === b.type && JSON.stringify(a.nbt || null) === JSON.stringify(b.nbt || null)
  }
  function equalStack (a, b) {
    if (!a && !b) return true
    if (!a || !b) return false
    return sameItem(a, b) && a.count === b.count
  }
  function maxStack (item) {
    return registry.items[item.type]?.stackSize ?? 64
  }
  function toNotch (item) {
    return Item.toNotch(item && item.count > 0 ? item : null)
  }

  // ---- menus ----
  class Menu {
    // containerSize: number of slots before the player's 36 inventory slots
    constructor (player, { inventoryType, title, containerSize }) {
      this.player = player
      // a name ('minecraft:furnace'): its protocol id at the served version (prismarine-windows)
      this.inventoryType = typeof inventoryType === 'string' ? pwindows.windows[inventoryType].type : inventoryType
      this.title = title
      this.containerSize = containerSize
      this.size = containerSize + 36
      this.id = -1
    }

    // player inventory index behind window slot i, or -1
    invIndex (i) {
      return i >= this.containerSize && i < this.size ? i - this.containerSize + 9 : -1
    }

    windowSlotOfInv (p) {
      return p >= 9 && p <= 44 ? p - 9 + this.containerSize : -1
    }

    get (i) {
      const p = this.invIndex(i)
      if (p >= 0) return this.player.inventory.slots[p] || null
      return this.getContainer(i)
    }

    set (i, item) {
      const p = this.invIndex(i)
      if (p >= 0) setInvSlot(this.player, p, item)
      else { this.setContainer(i, item); sendSlot(this.player, this.id, i, item) }
    }

    // write without telling this player's client (it predicted the click itself)
    setSilent (i, item) {
      const p = this.invIndex(i)
      if (p >= 0) setInvSlotSilent(this.player, p, item)
      else this.setContainer(i, item)
    }

    getContainer (i) { return null }
    setContainer (i, item) {}
    isTakeOnly (i) { return false }
    mayPlace (i, item) { return true }
    slotLimit (i, item) { return maxStack(item) }
    // shift-click destinations: list of [start, end (exclusive), reverse]
    quickMoveTargets (i, item) {
      if (i < this.containerSize) return [[this.containerSize, this.size, true]]
      return [[0, this.containerSize, false]]
    }

    // take the item of a take-only slot (result/output); stage side effects in txn
    takeResult (txn, i) {
      const item = txn.get(i)
      txn.set(i, null)
      return item
    }

    afterCommit (changed) {}
    onClose () {}
    // may the player still use this window? A container or table it has open stays usable
    // while the player is within vanilla's 8 blocks of the block (its stillValid check)
    stillValid () {
      if (!this.position) return true
      const p = this.player.position
      const c = this.position
      const dx = p.x - (c.x + 0.5)
      const dy = p.y - (c.y + 0.5)
      const dz = p.z - (c.z + 0.5)
      return dx * dx + dy * dy + dz * dz <= STILL_VALID_SQ
    }
  }

  // The player's own inventory window (id 0): 0 result, 1-4 grid, 5-8 armor,
  // 9-35 main, 36-44 hotbar, 45 offhand. Crafting is filled in by crafting.js.
  class InventoryMenu extends Menu {
    constructor (player) {
      super(player, { inventoryType: null, title: 'inventory', containerSize: 9 })
      this.id = 0
      this.size = 46
    }

    invIndex (i) { return i >= 0 && i < 46 ? i : -1 }
    windowSlotOfInv (p) { return p }
    isTakeOnly (i) { return i === 0 }
    mayPlace (i, item) {
      if (i === 0) return false
      if (i >= 5 && i <= 8) return armorSlotOf(item) === i
      return true
    }

    slotLimit (i, item) { return i >= 5 && i <= 8 ? 1 : maxStack(item) }
    quickMoveTargets (i, item) {
      if (i === 0) return [[9, 45, true]]
      if (i >= 1 && i <= 8) return [[9, 45, false]]
      const armor = armorSlotOf(item)
      const out = []
      if (armor > 0) out.push([armor, armor + 1, false])
      if (i >= 9 && i < 36) out.push([36, 45, false])
      else if (i >= 36 && i < 45) out.push([9, 36, false])
      else out.push([9, 45, false])
      return out
    }

    takeResult (txn, i) { return serv.piano.crafting ? serv.piano.crafting.takeResult(this, txn, i, 2) : null }
    afterCommit (changed) {
      if (changed.some(i => i >= 1 && i <= 4) && serv.piano.crafting) serv.piano.crafting.refreshResult(this, 2)
    }
  }

  function armorSlotOf (item) {
    if (!item) return -1
    const name = registry.items[item.type]?.name || ''
    if (/_helmet$|^carved_pumpkin$|_head$|^turtle_helmet$/.test(name)) return 5
    if (/_chestplate$|^elytra$/.test(name)) return 6
    if (/_leggings$/.test(name)) return 7
    if (/_boots$/.test(name)) return 8
    return -1
  }

  // ---- packets ----
  function sendSlot (player, windowId, slot, item) {
    player._client.write('set_slot', { windowId, slot, item: toNotch(item) })
  }

  function sendAll (player, menu) {
    const items = []
    for (let i = 0; i < menu.size; i++) items.push(toNotch(menu.get(i)))
    player._client.write('window_items', { windowId: menu.id, items })
    // from 1.17 window_items carries the cursor (versions.js)
    if (!stateIds) sendSlot(player, -1, -1, player.cursor)
  }

  function setInvSlot (player, p, item) {
    item = clone(item)
    player.inventory.updateSlot(p, item) // flying-squid sends set_slot(0, p) + equipment
    const menu = player.openMenu
    if (menu && menu.id !== 0) {
      const w = menu.windowSlotOfInv(p)
      if (w >= 0) sendSlot(player, menu.id, w, item)
    }
  }

  const EQUIPMENT = { 5: 5, 6: 4, 7: 3, 8: 2, 45: 1 } // window slot -> entity_equipment slot
  function setInvSlotSilent (player, p, item) {
    item = clone(item)
    if (item) item.slot = p
    player.inventory.slots[p] = item
    player.emit('piano_inventory_changed') // no packet, but the player's file is saved soon
    let equip = EQUIPMENT[p]
    if (p === 36 + player.heldItemSlot) equip = 0
    if (equip !== undefined) {
      player.setEquipment?.(equip, item)
      player._writeOthersNearby('entity_equipment', { entityId: player.id, equipments: [{ slot: equip, item: toNotch(item) }] })
    }
  }

  // merge into matching stacks then empty slots (hotbar first, like vanilla)
  function addToInventory (player, item) {
    item = clone(item)
    if (!item) return 0
    const order = []
    for (let p = 36; p <= 44; p++) order.push(p)
    for (let p = 9; p <= 35; p++) order.push(p)
    const limit = maxStack(item)
    for (const p of order) {
      const cur = player.inventory.slots[p]
      if (cur && sameItem(cur, item) && cur.count < limit) {
        const n = Math.min(limit - cur.count, item.count)
        const next = clone(cur)
        next.count += n
        item.count -= n
        setInvSlot(player, p, next)
        if (item.count === 0) return 0
      }
    }
    for (const p of order) {
      if (!player.inventory.slots[p]) {
        const n = Math.min(limit, item.count)
        const put = clone(item)
        put.count = n
        item.count -= n
        setInvSlot(player, p, put)
        if (item.count === 0) return 0
      }
    }
    return item.count
  }

  // a throw from the eyes in the look direction; a stack thrown at a player close by is
  // for that player (see items.js: they catch it)
  function dropItem (player, item, { pickupDelay = 2000 } = {}) {
    if (!item || item.count <= 0) return
    const e = serv.spawnObject(itemEntityType, player.world, player.position.offset(0, 1.3, 0), {
      velocity: new Vec3(0, 0, 0),
      itemId: item.type,
      itemCount: item.count,
      pickupTime: pickupDelay,
      deathTime: 5 * 60 * 1000
    })
    if (serv.piano.items) serv.piano.items.markThrow(e, player, { pickupDelay })
    else e.velocity = new Vec3(0, 1.5, 0)
  }

  // ---- click simulation ----
  class Txn {
    constructor (menu) {
      this.menu = menu
      this.changes = new Map()
      this.cursor = clone(menu.player.cursor)
    }

    get (i) { return this.changes.has(i) ? clone(this.changes.get(i)) : clone(this.menu.get(i)) }
    set (i, item) { this.changes.set(i, clone(item)) }
  }

  function validSlot (menu, i) { return i >= 0 && i < menu.size }

  // move `item` (a staged copy, modified) into slots [start, end): merge first, then empties
  function moveItemStackTo (txn, item, start, end, reverse) {
    const menu = txn.menu
    const range = []
    for (let i = start; i < end; i++) range.push(i)
    if (reverse) range.reverse()
    for (const i of range) {
      if (item.count <= 0) break
      const cur = txn.get(i)
      if (cur && sameItem(cur, item) && !menu.isTakeOnly(i)) {
        const limit = Math.min(menu.slotLimit(i, item), maxStack(item))
        if (cur.count < limit) {
          const n = Math.min(limit - cur.count, item.count)
          cur.count += n
          item.count -= n
          txn.set(i, cur)
        }
      }
    }
    for (const i of range) {
      if (item.count <= 0) break
      if (!txn.get(i) && !menu.isTakeOnly(i) && menu.mayPlace(i, item)) {
        const n = Math.min(menu.slotLimit(i, item), item.count)
        const put = clone(item)
        put.count = n
        item.count -= n
        txn.set(i, put)
      }
    }
  }

  function fitsInInventory (txn, item) {
    // could `item` be fully stored in the player part of the menu?
    let room = 0
    const menu = txn.menu
    const start = menu.id === 0 ? 9 : menu.containerSize
    const end = menu.id === 0 ? 45 : menu.size
    for (let i = start; i < end; i++) {
      const cur = txn.get(i)
      if (!cur) room += maxStack(item)
      else if (sameItem(cur, item)) room += Math.max(0, maxStack(item) - cur.count)
      if (room >= item.count) return true
    }
    return false
  }

  function clickPickup (txn, slot, button, player) {
    const menu = txn.menu
    if (slot === -999) {
      if (txn.cursor) {
        const thrown = clone(txn.cursor)
        if (button === 1) thrown.count = 1
        txn.cursor.count -= thrown.count
        if (txn.cursor.count <= 0) txn.cursor = null
        txn.dropped.push(thrown)
      }
      return
    }
    if (!validSlot(menu, slot)) return
    if (menu.isTakeOnly(slot)) {
      const result = txn.get(slot)
      if (!result) return
      if (txn.cursor && !(sameItem(txn.cursor, result) && txn.cursor.count + result.count <= maxStack(result))) return
      const taken = menu.takeResult(txn, slot)
      if (!taken) return
      if (txn.cursor) txn.cursor.count += taken.count
      else txn.cursor = taken
      return
    }
    const cur = txn.get(slot)
    const cursor = txn.cursor
    if (!cur && !cursor) return
    if (!cur) {
      if (!menu.mayPlace(slot, cursor)) return
      const n = button === 0 ? Math.min(cursor.count, menu.slotLimit(slot, cursor)) : 1
      const put = clone(cursor)
      put.count = n
      cursor.count -= n
      txn.set(slot, put)
      txn.cursor = cursor.count > 0 ? cursor : null
      return
    }
    if (!cursor) {
      const n = button === 0 ? cur.count : Math.ceil(cur.count / 2)
      txn.cursor = clone(cur)
      txn.cursor.count = n
      cur.count -= n
      txn.set(slot, cur.count > 0 ? cur : null)
      return
    }
    if (sameItem(cur, cursor)) {
      if (!menu.mayPlace(slot, cursor)) return
      const limit = Math.min(menu.slotLimit(slot, cursor), maxStack(cursor))
      const n = Math.min(button === 0 ? cursor.count : 1, Math.max(0, limit - cur.count))
      cur.count += n
      cursor.count -= n
      txn.set(slot, cur)
      txn.cursor = cursor.count > 0 ? cursor : null
      return
    }
    if (menu.mayPlace(slot, cursor) && cursor.count <= menu.slotLimit(slot, cursor)) {
      txn.set(slot, cursor)
      txn.cursor = cur
    }
  }

  function clickQuickMove (txn, slot) {
    const menu = txn.menu
    if (!validSlot(menu, slot)) return
    if (menu.isTakeOnly(slot)) {
      // take results into the inventory while they fit (crafting: craft max)
      for (let n = 0; n < 64; n++) {
        const result = txn.get(slot)
        if (!result || !fitsInInventory(txn, result)) return
        const taken = menu.takeResult(txn, slot)
        if (!taken) return
        for (const [s, e, r] of menu.quickMoveTargets(slot, taken)) moveItemStackTo(txn, taken, s, e, r)
        if (taken.count > 0) return // should not happen: checked fitsInInventory
        const next = txn.get(slot)
        if (!next || !sameItem(next, result)) return
      }
      return
    }
    const item = txn.get(slot)
    if (!item) return
    const before = item.count
    for (const [s, e, r] of menu.quickMoveTargets(slot, item)) {
      moveItemStackTo(txn, item, s, e, r)
      if (item.count <= 0) break
    }
    if (item.count !== before) txn.set(slot, item.count > 0 ? item : null)
  }

  function clickSwap (txn, slot, button) {
    const menu = txn.menu
    if (!validSlot(menu, slot) || button < 0 || button > 8) return
    const hot = menu.id === 0 ? 36 + button : menu.size - 9 + button
    if (hot === slot) return
    const a = txn.get(slot)
    const b = txn.get(hot)
    if (menu.isTakeOnly(slot)) {
      if (!a || b) return
      const taken = menu.takeResult(txn, slot)
      if (taken) txn.set(hot, taken)
      return
    }
    if (b && !menu.mayPlace(slot, b)) return
    if (b && b.count > menu.slotLimit(slot, b)) return
    txn.set(slot, b)
    txn.set(hot, a)
  }

  function clickThrow (txn, slot, button) {
    const menu = txn.menu
    if (txn.cursor || !validSlot(menu, slot)) return
    const cur = txn.get(slot)
    if (!cur) return
    if (menu.isTakeOnly(slot)) {
      const taken = menu.takeResult(txn, slot)
      if (taken) txn.dropped.push(taken)
      return
    }
    const thrown = clone(cur)
    thrown.count = button === 0 ? 1 : cur.count
    cur.count -= thrown.count
    txn.set(slot, cur.count > 0 ? cur : null)
    txn.dropped.push(thrown)
  }

  function clickDrag (txn, slot, button, player) {
    const menu = txn.menu
    const stage = button & 3 // 0 start, 1 add, 2 end
    const kind = button >> 2 // 0 left, 1 right, 2 middle
    if (stage === 0) { player.drag = { kind, slots: [] }; return }
    const drag = player.drag
    if (!drag || drag.kind !== kind) { player.drag = null; return }
    if (stage === 1) {
      if (validSlot(menu, slot) && !menu.isTakeOnly(slot) && !drag.slots.includes(slot)) drag.slots.push(slot)
      return
    }
    player.drag = null
    const cursor = txn.cursor
    if (!cursor || kind === 2) return
    const slots = drag.slots.filter(i => {
      const cur = txn.get(i)
      return menu.mayPlace(i, cursor) && (!cur || sameItem(cur, cursor))
    })
    if (slots.length === 0) return
    if (slots.length === 1) return clickPickup(txn, slots[0], kind, player)
    const each = kind === 0 ? Math.floor(cursor.count / slots.length) : 1
    if (each < 1) return
    for (const i of slots) {
      if (cursor.count <= 0) break
      const cur = txn.get(i) || (() => { const c = clone(cursor); c.count = 0; return c })()
      const limit = Math.min(menu.slotLimit(i, cursor), maxStack(cursor))
      const n = Math.min(each, limit - cur.count, cursor.count)
      if (n <= 0) continue
      cur.count += n
      cursor.count -= n
      txn.set(i, cur)
    }
    txn.cursor = cursor.count > 0 ? cursor : null
  }

  function clickPickupAll (txn, slot) {
    const menu = txn.menu
    const cursor = txn.cursor
    if (!cursor) return
    const limit = maxStack(cursor)
    for (const fullPass of [false, true]) {
      for (let i = 0; i < menu.size && cursor.count < limit; i++) {
        if (menu.isTakeOnly(i)) continue
        const cur = txn.get(i)
        if (!cur || !sameItem(cur, cursor)) continue
        if (!fullPass && cur.count === maxStack(cur)) continue
        const n = Math.min(limit - cursor.count, cur.count)
        cur.count -= n
        cursor.count += n
        txn.set(i, cur.count > 0 ? cur : null)
      }
    }
  }

  // apply a click to a staged copy of the menu; null when the simulation threw
  function simulate (player, menu, packet) {
    const { slot, mouseButton: button, mode } = packet
    const txn = new Txn(menu)
    txn.dropped = []
    try {
      switch (mode) {
        case 0: if (button <= 1) clickPickup(txn, slot, button, player); break
        case 1: if (button <= 1) clickQuickMove(txn, slot); break
        case 2: clickSwap(txn, slot, button); break
        case 3: break // clone: creative only
        case 4: if (slot !== -999) clickThrow(txn, slot, button); break
        case 5: clickDrag(txn, slot, button, player); break
        case 6: clickPickupAll(txn, slot); break
      }
    } catch (err) {
      serv.warn?.(`click failed: ${err && err.stack}`)
      return null
    }
    return txn
  }

  const menuOf = (player, windowId) => (windowId === 0 ? player.inventoryMenu : player.openMenu)
  const refuse = (player, kind, detail) => serv.piano.refuse?.(player, kind, detail)
  const clickText = (p) => `window ${p.windowId} slot ${p.slot} mode ${p.mode} button ${p.mouseButton}`

  // A click the server refuses before simulating it: a creative-only click (clone, middle
  // drag) in survival or adventure; a click in a container window the player has left (out
  // of reach: the window is closed, as vanilla closes it). The player's windows are then
  // sent as they are. Returns true when refused.
  function refusedClick (player, menu, packet) {
    const creativeOnly = packet.mode === 3 || (packet.mode === 5 && (packet.mouseButton >> 2) === 2)
    if (creativeOnly && player.gameMode !== 1) {
      refuse(player, 'creative_packet', `${clickText(packet)} in game mode ${player.gameMode}`)
      sendAll(player, menu)
      return true
    }
    if (menu.id !== 0 && !menu.stillValid()) {
      refuse(player, 'container_out_of_reach', `${clickText(packet)}, container at ${menu.position}`)
      closeMenu(player)
      player._client.write('close_window', { windowId: menu.id })
      sendAll(player, player.inventoryMenu)
      return true
    }
    return false
  }

  // 1.16.5: every click is answered with a transaction packet
  function handleClick (player, packet) {
    const menu = menuOf(player, packet.windowId)
    const respond = (accepted) => player._client.write('transaction', { windowId: packet.windowId, action: packet.action, accepted })
    if (!menu || menu.id !== packet.windowId) {
      // a click for a window that is not open (e.g. just closed): nothing happens
      refuse(player, 'window_not_open', clickText(packet))
      respond(true)
      return
    }
    if (refusedClick(player, menu, packet)) { respond(false); return }
    const { slot, mouseButton: button, mode } = packet
    const before = validSlot(menu, slot) ? clone(menu.get(slot)) : null
    const predicted = predict(menu, player, { slot, mouseButton: button, mode, windowId: menu.id })
    const txn = simulate(player, menu, packet)
    if (!txn) {
      respond(false)
      sendAll(player, menu)
      return
    }
    // vanilla accepts when the client's idea of the clicked slot was right
    const clientItem = packet.item && packet.item.present !== false && packet.item.itemId > 0 ? packet.item : null
    let accepted = true
    if (mode === 0 && validSlot(menu, slot)) {
      accepted = (!before && !clientItem) ||
        (before && clientItem && before.type === clientItem.itemId && before.count === clientItem.itemCount)
    } else if ((mode === 2 || mode === 4) && validSlot(menu, slot)) {
      accepted = !clientItem // a swap or a throw names no item (vanilla's click returns none)
    } else if (mode === 1 && validSlot(menu, slot)) {
      // a shift-click names nothing or the slot's stack before it
      accepted = !clientItem || Boolean(before && before.type === clientItem.itemId && before.count === clientItem.itemCount)
    }
    respond(accepted)
    if (!accepted) {
      refuse(player, 'window_click', `${clickText(packet)}: the client's slot differed`)
      serv.info?.(`click rejected: ${player.username} window ${menu.id} slot ${slot} mode ${mode} button ${button}: client ${clientItem ? clientItem.itemId + 'x' + clientItem.itemCount : 'empty'}, server ${before ? before.type + 'x' + before.count : 'empty'}`)
    }
    const changed = commit(player, menu, txn)
    if (!accepted) sendAll(player, menu)
    else if (slot === -999 && mode === 0 && !before && menu.id === 0) sendAll(player, menu) // a sync click
    else {
      // correct the client where its prediction differs from what happened
      for (let i = 0; i < menu.size; i++) {
        const mine = menu.get(i)
        const theirs = predicted ? predicted.slots[i] : (changed.includes(i) ? undefined : mine)
        if (theirs === undefined || !equalStack(mine, theirs)) sendSlot(player, menu.id, i, mine)
      }
      if (!predicted || !equalStack(player.cursor, predicted.selectedItem)) sendSlot(player, -1, -1, player.cursor)
    }
    if (changed.length) menu.afterCommit(changed)
  }

  // 1.17+, as a vanilla server answers (see click_sync.js): a click whose state id is not the
  // last one sent is applied, then answered with the whole window; otherwise only the slots
  // that differ from the client's view after its own prediction (the slots the click says it
  // changed, the rest as last sent) are sent. A click on a crafting grid or its result is
  // answered with the result slot last: mineflayer waits for it, then clicks again with its
  // state id, which is then the newest.
  function handleClickStateId (player, packet) {
    const menu = menuOf(player, packet.windowId)
    if (!menu || menu.id !== packet.windowId) {
      // a click for a window that is not open (e.g. just closed): vanilla ignores it; but
      // mineflayer's sync click (state id -1) waits for a whole window
      if (packet.stateId === -1 && menu) sendAll(player, menu)
      else refuse(player, 'window_not_open', clickText(packet))
      return
    }
    if (refusedClick(player, menu, packet)) return
    const view = player.pianoClientView
    const stale = packet.stateId !== player.pianoStateId
    const txn = simulate(player, menu, packet)
    const waits = packet.slot >= 0 && packet.slot <= craftGridEnd(menu)
    if (txn) {
      const changed = commit(player, menu, txn)
      menu.deferResult = true // the result slot goes below, last
      try { if (changed.length) menu.afterCommit(changed) } finally { menu.deferResult = false }
    }
    view.clientClicked(menu.id, packet.changedSlots, packet.cursorItem)
    // a client whose view was current claims what its click did; where that differs from what
    // the server did it is corrected below. A claim of more of an item than the window and
    // cursor hold is counted (a misprediction of where items went is only corrected)
    if (!stale && txn) {
      const more = claimsMore(menu, view, waits)
      if (more.length) refuse(player, 'window_click', `${clickText(packet)}: the client claimed ${more.join(', ')}`)
    }
    if (stale || !txn) return sendAll(player, menu)
    for (let i = 0; i < menu.size; i++) {
      if (waits && i === 0) continue
      const mine = menu.get(i)
      if (!view.shows(menu.id, i, mine)) sendSlot(player, menu.id, i, mine)
    }
    if (!view.showsCarried(player.cursor)) sendSlot(player, -1, -1, player.cursor)
    if (waits) sendSlot(player, menu.id, 0, menu.get(0))
  }
  const craftingType = pwindows.windows['minecraft:crafting']?.type
  // the item types of which a 1.17+ client's view after its click (slots and cursor) holds
  // more than the server's window and cursor ("<name> x<claimed> (has <n>)"). After a click on
  // a crafting grid or its result the grid is left out: the server consumes the ingredients,
  // which a client (mineflayer) does not predict
  function claimsMore (menu, view, waits) {
    const from = waits ? craftGridEnd(menu) + 1 : 0
    const theirs = view.counts(menu.id, menu.size, from)
    const mine = new Map()
    for (let i = from; i < menu.size; i++) { const it = menu.get(i); if (it) mine.set(it.type, (mine.get(it.type) || 0) + it.count) }
    if (menu.player.cursor) mine.set(menu.player.cursor.type, (mine.get(menu.player.cursor.type) || 0) + menu.player.cursor.count)
    const out = []
    for (const [type, n] of theirs) if (n > (mine.get(type) || 0)) out.push(`${registry.items[type]?.name} x${n} (has ${mine.get(type) || 0})`)
    return out
  }

  // the last slot of a menu's crafting grid (0 = result), -1 for menus without one
  const craftGridEnd = (menu) => (menu.id === 0 ? 4 : menu.inventoryType === craftingType ? 9 : -1)

  function commit (player, menu, txn) {
    const changed = []
    for (const [i, item] of txn.changes) {
      if (equalStack(menu.get(i), item)) continue
      menu.setSilent(i, item)
      changed.push(i)
    }
    player.cursor = txn.cursor
    for (const item of txn.dropped) dropItem(player, item)
    return changed
  }

  function returnCursor (player) {
    if (!player.cursor) return
    const left = addToInventory(player, player.cursor)
    if (left > 0) { const d = clone(player.cursor); d.count = left; dropItem(player, d) }
    player.cursor = null
  }

  function closeMenu (player) {
    const menu = player.openMenu
    player.openMenu = null
    player.drag = null
    if (menu) player.pianoClientView?.closed(menu.id, menu.containerSize)
    if (menu) { try { menu.onClose() } catch (err) { serv.warn?.(`close failed: ${err}`) } }
    player.inventoryMenu?.onClose()
    returnCursor(player)
  }

  // a chat component: JSON text before 1.20.3, NBT since
  const windowTitle = (component) => serv.supportFeature('chatPacketsUseNbtComponents') ? nbtText(component) : JSON.stringify(component)

  function open (player, menu) {
    if (player.openMenu) {
      closeMenu(player)
      player._client.write('close_window', { windowId: 0 })
    }
    player.windowCounter = (player.windowCounter % 100) + 1
    menu.id = player.windowCounter
    player.openMenu = menu
    player._client.write('open_window', {
      windowId: menu.id,
      inventoryType: menu.inventoryType,
      windowTitle: windowTitle(menu.title)
    })
    sendAll(player, menu)
    return menu
  }

  const pendingSaves = new Set()
  serv.piano.pendingSaves = pendingSaves
  serv.piano.windows = { Menu, InventoryMenu, open, closeMenu, addToInventory, dropItem, setInvSlot, sendSlot, sendAll, sameItem, equalStack, maxStack, clone, Item }

  // ---- per player wiring ----
  serv.piano.windows.attach = function attach (player) {
    player.cursor = null
    player.openMenu = null
    player.windowCounter = 0
    player.inventoryMenu = new InventoryMenu(player)
    player.inventoryMenu.onClose = () => {
      // vanilla returns the 2x2 grid to the inventory when the screen closes
      for (let i = 1; i <= 4; i++) {
        const it = player.inventory.slots[i]
        if (it) {
          setInvSlot(player, i, null)
          const left = addToInventory(player, it)
          if (left > 0) { const d = clone(it); d.count = left; dropItem(player, d) }
        }
      }
      if (player.inventory.slots[0]) setInvSlot(player, 0, null)
    }
    // replace flying-squid's click handlers
    player._client.removeAllListeners('window_click')
    player._client.removeAllListeners('close_window')
    if (stateIds) player.pianoClientView = clientView(player, Item)
    player._client.on('window_click', (packet) => {
      try { (stateIds ? handleClickStateId : handleClick)(player, packet) } catch (err) { serv.warn?.(`window_click: ${err && err.stack}`) }
    })
    player._client.on('close_window', () => {
      closeMenu(player)
      player.windowType = ''
      player.windowPos = undefined
    })
    // the crafting grid (slots 0-4) is never written to playerdata
    // (the host awaits pending saves before it exits)
    player.save = () => {
      const view = Object.create(player)
      const slots = player.inventory.slots.map((it, i) => (i <= 4 ? null : it))
      view.inventory = { slots }
      const saving = playerDat.save(view, serv.piano.settings.worldDir, serv.supportFeature('attributeSnakeCase'), serv.supportFeature('theFlattening'))
        .catch(err => serv.warn?.(`could not save player ${player.username}: ${err && err.stack}`))
        .finally(() => pendingSaves.delete(saving))
      pendingSaves.add(saving)
      return saving
    }
  }
}

module.exports.player = function (player, serv) {
  // flying-squid's inventory.js registers its listeners after external
  // plugins run: replace them once every plugin has run for this player
  player.once('asap', () => {
    serv.piano.windows.attach(player)
    // before logout.js saves the player: put grid and cursor items back
    player._client.prependListener('end', () => {
      try { serv.piano.windows.closeMenu(player); player.inventoryMenu.onClose() } catch (err) {}
    })
  })
}
