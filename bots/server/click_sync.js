'use strict'
// What a 1.17+ client was last shown of its windows, as a vanilla server keeps it (its
// "remote slots" and "remote carried"): every set_slot, window_items, set_cursor_item we write
// to the player is recorded, and a click's own prediction (its changed slots and cursor) is
// taken as the client's view. windows.js then answers a click with only the slots where ours
// differ from that view, so a client that predicted right gets nothing and its next click
// still carries the newest state id.
//
// clientView(player, Item) wraps player._client.write and returns
//   shows(windowId, slot, item)    the client's view of that slot is `item`
//   showsCarried(item)             ... of its cursor
//   clientClicked(windowId, changedSlots, cursorItem)
//   counts(windowId, size, from)   item type -> count over the client's view and cursor
//   closed(windowId, containerSize)

module.exports = function clientView (player, Item) {
  // window id -> (slot -> Item|null); a slot never sent is empty, as a new client's inventory
  // and a window just opened are
  const windows = new Map([[0, new Map()]])
  let carried = null
  let stale = false // a packet we could not read: every slot differs until a whole window
  const read = (notch) => (notch ? Item.fromNotch(notch) : null)

  function slots (windowId) {
    let m = windows.get(windowId)
    if (!m) { m = new Map(); windows.set(windowId, m) }
    return m
  }

  function record (name, p) {
    if (name === 'open_window') windows.set(p.windowId, new Map())
    else if (name === 'window_items') {
      const m = new Map()
      p.items.forEach((it, i) => m.set(i, read(it)))
      windows.set(p.windowId, m)
      stale = false
      // versions.js adds the cursor to window_items (written after this wrapper)
      carried = p.carriedItem !== undefined ? read(p.carriedItem) : (player.cursor || null)
    } else if (name === 'set_slot') {
      if (p.windowId === -1) carried = read(p.item)
      else slots(p.windowId).set(p.slot, read(p.item))
    } else if (name === 'set_cursor_item') carried = read(p.contents)
  }

  const write = player._client.write.bind(player._client)
  player._client.write = (name, params) => {
    if (params) {
      try { record(name, params) } catch (err) { stale = true }
    }
    return write(name, params)
  }

  const same = (a, b) => {
    if (!a && !b) return true
    if (!a || !b) return false
    return a.type === b.type && a.count === b.count && JSON.stringify(a.nbt || null) === JSON.stringify(b.nbt || null)
  }

  return {
    shows (windowId, slot, item) {
      const m = windows.get(windowId)
      return !stale && !!m && same(m.get(slot) ?? null, item && item.count > 0 ? item : null)
    },
    showsCarried (item) {
      return !stale && same(carried, item && item.count > 0 ? item : null)
    },
    // a container window closed: the client keeps what it showed of the player's inventory in
    // it (mineflayer copies it; vanilla's transferState), slots 9-44 of window 0
    closed (windowId, containerSize) {
      const m = windows.get(windowId)
      windows.delete(windowId)
      if (!m || windowId === 0) return
      const inv = windows.get(0)
      for (let i = 0; i < 36; i++) inv.set(9 + i, m.get(containerSize + i) ?? null)
    },
    // how many of each item type the client's view of a window (slots from..size-1) and its
    // cursor holds: type -> count
    counts (windowId, size, from = 0) {
      const out = new Map()
      const add = (it) => { if (it && it.count > 0) out.set(it.type, (out.get(it.type) || 0) + it.count) }
      const m = windows.get(windowId)
      if (m) for (let i = from; i < size; i++) add(m.get(i))
      add(carried)
      return out
    },
    clientClicked (windowId, changedSlots, cursorItem) {
      const m = slots(windowId)
      for (const c of changedSlots || []) m.set(c.location, read(c.item))
      carried = read(cursorItem)
    }
  }
}
