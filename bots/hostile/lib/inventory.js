'use strict'
// Helpers shared by the inventory and container cheats: items in each version's packet
// shape, window clicks as a modified client writes them (1.16.5 action numbers, 1.17+
// state ids and the client's claimed changes), the server's own view of a player's
// inventory, a container and the items lying near a spot (admin API).

const prismarineItem = require('prismarine-item')
const mcData = require('minecraft-data')

const cache = new Map()
function kit (version) {
  if (!cache.has(version)) {
    const registry = mcData(version)
    cache.set(version, { registry, Item: prismarineItem(version) })
  }
  return cache.get(version)
}

// an item in the version's slot shape; null/0 = the empty slot
function notch (t, name, count = 1) {
  const { registry, Item } = kit(t.version)
  if (!name || count <= 0) return Item.toNotch(null)
  const def = registry.itemsByName[name]
  if (!def) throw new Error(`no item ${name} at ${t.version}`)
  return Item.toNotch(new Item(def.id, count))
}

// {name, count} of a notch item as the server sent it, or null
function fromNotch (t, it) {
  const { registry, Item } = kit(t.version)
  if (!it) return null
  const item = Item.fromNotch(it)
  if (!item || !item.count) return null
  return { name: registry.items[item.type]?.name, count: item.count }
}

// a window click; `claim` is what the client says happened: `item` the clicked slot before
// the click (1.16.5), `changed` [[slot, name, count]...] and `cursor` [name, count] (1.17+)
function click (t, client, { windowId, slot, button = 0, mode = 0, claim = {} }) {
  const stateIds = !kit(t.version).registry.version['<']('1.17')
  if (!stateIds) {
    client.pianoAction = (client.pianoAction || 0) + 1
    client.write('window_click', {
      windowId, slot, mouseButton: button, action: client.pianoAction, mode,
      item: claim.item ? notch(t, ...claim.item) : notch(t, null)
    })
    return
  }
  const w = client.windows[windowId] || { stateId: 0 }
  client.write('window_click', {
    windowId,
    stateId: claim.stateId ?? w.stateId,
    slot,
    mouseButton: button,
    mode,
    changedSlots: (claim.changed || []).map(([location, name, count]) => ({ location, item: notch(t, name, count) })),
    cursorItem: claim.cursor ? notch(t, ...claim.cursor) : notch(t, null)
  })
}

// the server's record of a player: counts by item name over slots 0-45 and the cursor
async function inventoryCounts (t, username) {
  const inv = await t.admin('GET', `/players/${encodeURIComponent(username)}/inventory`)
  const counts = {}
  for (const it of inv.items) counts[it.name] = (counts[it.name] || 0) + it.count
  if (inv.cursor) counts[inv.cursor.name] = (counts[inv.cursor.name] || 0) + inv.cursor.count
  return counts
}

async function containerCounts (t, { x, y, z }) {
  const c = await t.admin('GET', `/containers/${x}/${y}/${z}`)
  const counts = {}
  for (const it of c.items) counts[it.name] = (counts[it.name] || 0) + it.count
  return counts
}

// dropped items (item entities) within `radius` of a point, by name
async function droppedNear (t, { x, y, z }, radius = 12) {
  const { entities } = await t.admin('GET', `/entities?near=${x},${y},${z}&radius=${radius}`)
  const counts = {}
  for (const e of entities) if (e.item) counts[e.item.name] = (counts[e.item.name] || 0) + e.item.count
  return counts
}

// the total of one item in a player's inventory, a container and on the ground
async function total (t, name, { player, container, near }) {
  let n = 0
  if (player) n += (await inventoryCounts(t, player))[name] || 0
  if (container) n += (await containerCounts(t, container))[name] || 0
  if (near) n += (await droppedNear(t, near))[name] || 0
  return n
}

async function command (t, text) {
  return t.admin('POST', '/command', { command: text })
}

// give a player items through the admin API, then wait until its client has them
async function give (t, client, name, count) {
  await command(t, `/give ${client.username} ${name} ${count}`)
  await t.sync(client)
}

// a block position `dx, dz` from the client's feet, at the height of its feet
function beside (client, dx, dz = 0, dy = 0) {
  const p = client.position
  return { x: Math.floor(p.x) + dx, y: Math.floor(p.y) + dy, z: Math.floor(p.z) + dz }
}

async function setBlock (t, { x, y, z }, name) {
  await command(t, `/setblock ${x} ${y} ${z} ${name}`)
}

// "use on block": open a chest/furnace/crafting table, place a block
function useOn (t, client, { x, y, z }, face = 1) {
  client.write('block_place', {
    hand: 0, location: { x, y, z }, direction: face, cursorX: 0.5, cursorY: 0.5, cursorZ: 0.5,
    insideBlock: false, worldBorderHit: false, sequence: 1
  })
}

// open a container with "use on block" and wait for its window (or null within ms)
async function openAt (t, client, at, ms = 3000) {
  const opened = t.next(client, 'open_window', null, ms).catch(() => null)
  useOn(t, client, at)
  const win = await opened
  if (win) await t.sync(client)
  return win
}

// teleport a player (admin API) and wait until its client is there
async function teleport (t, client, { x, y, z }) {
  const seen = []
  const log = (p) => seen.push([p.x, p.y, p.z])
  client.on('position', log)
  const there = t.next(client, 'position', (p) => Math.abs(p.x - x) < 1e-6 && Math.abs(p.z - z) < 1e-6, 15000)
  await t.admin('POST', `/players/${encodeURIComponent(client.username)}/teleport`, { x, y, z })
  try { await there } catch (err) { throw new Error(`${err.message}; asked ${x},${y},${z}, seen ${JSON.stringify(seen)}; kicked ${client.kicked}`) } finally { client.removeListener('position', log) }
  await t.sync(client)
}

// every count in `a` equals `b`'s (missing = 0)
function sameCounts (a, b) {
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if ((a[k] || 0) !== (b[k] || 0)) return false
  return true
}

const HOTBAR = 36 // window-0 slot of hotbar slot 0
const CHEST_HOTBAR = 54 // a single chest's window slot of hotbar slot 0 (27 chest + 27 main)

// the village square's centre block (players stand at its y); the inventory cheats set their
// blocks on its west side (x - 3 and beyond), away from the movement cheats' wall (x + 2)
async function square (t) {
  return (await t.admin('GET', '/places')).spawn
}

// A clean spot for one cheat: a stone block to stand on, air at feet and head, at its own
// place west of the square (6 or 8 blocks from the next, within the chunks made at start), so items thrown or left by one cheat
// are never near another's. Teleports `client` there; resolves to the feet's block.
let spots = 0
async function spot (t, client) {
  const s = await square(t)
  const n = spots++
  const at = { x: s.x - 10 - 6 * (n % 4), y: s.y, z: s.z - 14 + 8 * Math.floor(n / 4) }
  await setBlock(t, { x: at.x, y: at.y - 1, z: at.z }, 'stone')
  await setBlock(t, at, 'air')
  await setBlock(t, { x: at.x, y: at.y + 1, z: at.z }, 'air')
  await teleport(t, client, { x: at.x + 0.5, y: at.y, z: at.z + 0.5 })
  return at
}

// what lies on the ground within 4 blocks of a spot, by name
async function groundAt (t, at) {
  return droppedNear(t, { x: at.x + 0.5, y: at.y, z: at.z + 0.5 }, 4)
}

function closeWindow (client, windowId) {
  client.write('close_window', { windowId })
}

// the client's idea of its inventory (window 0, slots 9-45) is the server's
async function clientAgrees (t, client) {
  await t.sync(client)
  const inv = await t.admin('GET', `/players/${encodeURIComponent(client.username)}/inventory`)
  const server = {}
  for (const it of inv.items) server[it.slot] = it
  const shown = (client.windows[0] && client.windows[0].slots) || []
  for (let slot = 9; slot <= 45; slot++) {
    const a = fromNotch(t, shown[slot])
    const b = server[slot]
    if (!a !== !b || (a && (a.name !== b.name || a.count !== b.count))) return false
  }
  return true
}

// a chest 2 blocks west of `owner`'s spot holding `count` of `name` put there by the owner
// (given them, opens the chest, shift-clicks them in and closes it); resolves to
// { chest, at } (the chest's and the owner's spot's block positions)
async function chestWith (t, owner, name, count) {
  const at = await spot(t, owner)
  const chest = { x: at.x - 2, y: at.y, z: at.z }
  await setBlock(t, { x: chest.x, y: chest.y + 1, z: chest.z }, 'air')
  await setBlock(t, chest, 'chest')
  const before = (await containerCounts(t, chest))[name] || 0
  await give(t, owner, name, count)
  const win = await openAt(t, owner, chest)
  if (!win) throw new Error(`${owner.username} could not open the chest at ${chest.x},${chest.y},${chest.z}`)
  click(t, owner, { windowId: win.windowId, slot: CHEST_HOTBAR, mode: 1, claim: { changed: [[CHEST_HOTBAR, null, 0], [0, name, before + count]] } })
  closeWindow(owner, win.windowId)
  await t.sync(owner)
  const inChest = (await containerCounts(t, chest))[name] || 0
  if (inChest !== before + count) throw new Error(`the chest holds ${inChest} ${name}, not ${before + count}`)
  return { chest, at, inChest, windowId: win.windowId }
}

module.exports = {
  kit, notch, fromNotch, click, inventoryCounts, containerCounts, droppedNear, total, command,
  give, beside, setBlock, useOn, openAt, teleport, sameCounts, square, closeWindow, clientAgrees,
  chestWith, spot, groundAt, HOTBAR, CHEST_HOTBAR
}
