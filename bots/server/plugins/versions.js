'use strict'
// Packets (and one table) flying-squid 1.12.0 writes or reads in their 1.16 shape, adapted to the served
// version where the shape changed (only what our village uses):
// - 1.21.2+ `position` (a teleport, the login's position) has a velocity (dx, dy, dz) and its
//   flags are a set: flying-squid left them out, the write threw and the client was dropped
//   (`/tp` ended the connection at 1.21.4).
// - 1.21.2+ moves from the client carry `flags.onGround` instead of `onGround`.
// - 1.21.2+ an entity that moved more than 8 blocks (a player teleported) is sent as
//   `sync_entity_position` (vanilla's packet for it; yaw and pitch in degrees), not
//   flying-squid's 1.16-shaped `entity_teleport` (whose 1.21.2 form has a velocity and a
//   flag set): its write threw and every player who saw the move was dropped (agents
//   placed by /tp at an experiment's start lost their connection at 1.21.4).
// - 1.17+ `set_slot` and `window_items` carry the window's state id (`player.pianoStateId`,
//   counted here: a click with another one is answered with the whole window, see
//   windows.js) and `window_items` the cursor; flying-squid wrote neither.
// - 1.21.2+ the cursor has its own packet (`set_cursor_item`), not `set_slot` of window -1.
// - 1.19+ has no `chat` packet from the server: our plugins' messages go as `system_chat`
//   (a JSON text, NBT from 1.20.3).
// - 1.20.3+ window titles are NBT (`nbtText` is used by windows.js).
// - 1.20+ entity metadata names its types and, from 1.17, an item entity's stack is key 8:
//   flying-squid wrote the 1.16 numbers (type 6 at key 7), which failed to write, so dropped
//   items were never shown. Entries keep their meaning; the stack is in the version's format.
// - `respawn`: 1.20.5+ carries the world's spawn info (`worldState`, as the login does) and
//   1.20.2-1.20.4 name the dimension type by a string (the login's `worldType`): flying-squid
//   wrote the 1.16 fields, the write threw ("SizeOf error ... dimension") and a player who
//   died was dropped instead of respawning (1.20.4, 1.21.4).
// - 1.20+: flying-squid's sound packets are not sent (their 1.16 shape broke the client's
//   packet parsing at 1.21.4).

// flying-squid names a mob from `registry.mobs`, which at 1.20+ lacks the animals (their
// entity type is 'animal' there, not 'mob'): the village's animals failed to spawn.
const LIVING = new Set(['mob', 'animal', 'hostile', 'passive', 'ambient', 'water_creature'])
module.exports.server = function (serv) {
  const mobs = serv.registry.mobs
  if (!mobs) return
  for (const e of serv.registry.entitiesArray) if (LIVING.has(e.type) && !mobs[e.id]) mobs[e.id] = e
}

module.exports.player = function (player, serv) {
  const stateIds = serv.supportFeature('stateIdUsed')
  const cursorPacket = serv.registry.version['>=']('1.21.2')
  const moveFlags = serv.registry.version['>=']('1.21.2')
  player.pianoStateId = 0
  const systemChat = serv.supportFeature('signedChat')
  const nbtChat = serv.supportFeature('chatPacketsUseNbtComponents')
  if (!stateIds) return
  const Item = require('prismarine-item')(serv.registry)
  const namedMetadata = serv.registry.version['>=']('1.20')
  // flying-squid sends no entity metadata from 1.20.2 ("todo: fix in mcdata", its
  // entities.js), so a dropped item reached clients without its stack: mineflayer never saw
  // an itemDrop (the test bot's collects at 1.20.4/1.21.4 found no drop) and a vanilla client
  // shows no item. An item entity's metadata follows its spawn packet to each player.
  const itemMetadata = serv.registry.version['>=']('1.20.2')
  const login = serv.registry.loginPacket || {}
  const write = player._client.write.bind(player._client)
  player._client.write = (name, params) => {
    if (name === 'respawn' && params) {
      const shaped = respawnShape(params, login)
      if (shaped) return write('respawn', shaped)
    }
    // flying-squid's sounds are in the 1.16 shape: at 1.21 the client failed to read them
    // ("Chunk size is 51 but only 31 was read"); bodies do not listen to sounds
    if (namedMetadata && (name === 'sound_effect' || name === 'named_sound_effect')) return
    if (systemChat && name === 'chat' && params) {
      const content = nbtChat ? nbtText(JSON.parse(params.message)) : params.message
      return write('system_chat', { content, type: 1, isActionBar: params.position === 2 })
    }
    if (itemMetadata && name === 'spawn_entity' && params) {
      const sent = write(name, params)
      const entity = serv.entities[params.entityId]
      if (entity && entity.itemId !== undefined && Array.isArray(entity.metadata) && entity.metadata.length) {
        player._client.write('entity_metadata', { entityId: entity.id, metadata: entity.metadata })
      }
      return sent
    }
    if (namedMetadata && name === 'entity_metadata' && params && Array.isArray(params.metadata)) {
      params = { ...params, metadata: params.metadata.map(m => metadataEntry(m, Item)).filter(Boolean) }
    }
    if (name === 'set_slot' && params) {
      if (cursorPacket && params.windowId === -1) return write('set_cursor_item', { contents: params.item })
      player.pianoStateId = (player.pianoStateId + 1) & 0x7fff
      params = { ...params, stateId: player.pianoStateId }
    } else if (name === 'window_items' && params) {
      player.pianoStateId = (player.pianoStateId + 1) & 0x7fff
      params = { carriedItem: Item.toNotch(player.cursor || null), ...params, stateId: player.pianoStateId }
    } else if (moveFlags && name === 'entity_teleport' && params) {
      // flying-squid's yaw and pitch are byte angles (1/256 of a turn)
      const { entityId, x, y, z, onGround } = params
      const deg = (b) => b * 360 / 256
      return write('sync_entity_position', { entityId, x, y, z, dx: 0, dy: 0, dz: 0, yaw: deg(params.yaw), pitch: deg(params.pitch), onGround: !!onGround })
    } else if (moveFlags && name === 'position' && params) {
      params = {
        dx: 0,
        dy: 0,
        dz: 0,
        ...params,
        flags: typeof params.flags === 'number' ? relativeFlags(params.flags) : params.flags
      }
    }
    return write(name, params)
  }
  if (!moveFlags) return
  for (const name of ['position', 'position_look', 'look', 'flying']) {
    player._client.prependListener(name, (packet) => {
      if (packet && packet.onGround === undefined && packet.flags) packet.onGround = !!packet.flags.onGround
    })
  }
}

const GAME_MODES = ['survival', 'creative', 'adventure', 'spectator']

// flying-squid's respawn fields in the served version's shape (null: already in it)
function respawnShape (params, login) {
  const previousGamemode = typeof params.previousGameMode === 'number' ? params.previousGameMode : 255
  if (login.worldState && !params.worldState) {
    const mode = params.gamemode
    const gamemode = typeof mode === 'number' ? GAME_MODES[mode] : (mode ?? login.worldState.gamemode)
    return { worldState: { ...login.worldState, gamemode, previousGamemode }, copyMetadata: params.copyMetadata ? 1 : 0 }
  }
  if (login.worldType && typeof params.dimension !== 'string') {
    return { ...params, dimension: login.worldType, previousGamemode }
  }
  return null
}

// the 1.16 bit mask (x, y, z, yaw, pitch relative) as 1.21.2's flag set
function relativeFlags (mask) {
  const names = ['x', 'y', 'z', 'yaw', 'pitch']
  const out = {}
  names.forEach((n, i) => { if (mask & (1 << i)) out[n] = true })
  return out
}

// flying-squid's 1.16 metadata types (numbers) by name; key 7 (1.16: an item's stack) moved
// to 8 in 1.17 (ticks frozen came in at 7)
const TYPE_NAMES = { 0: 'byte', 1: 'int', 2: 'float', 3: 'string', 7: 'boolean', 18: 'pose' }
function metadataEntry (m, Item) {
  if (typeof m.type !== 'number') return m
  if (m.type === 6) {
    const v = m.value || {}
    const stack = v.present === false || !v.itemId ? null : new Item(v.itemId, v.itemCount || 1)
    return { key: m.key === 7 ? 8 : m.key, type: 'item_stack', value: Item.toNotch(stack) }
  }
  const type = TYPE_NAMES[m.type]
  return type && m.value !== undefined ? { key: m.key, type, value: m.value } : null
}

// a chat component (string or object) as the anonymous NBT of 1.20.3+ packets
function nbtText (component) {
  const tag = (v) => {
    if (typeof v === 'string') return { type: 'string', value: v }
    if (typeof v === 'boolean') return { type: 'byte', value: v ? 1 : 0 }
    if (typeof v === 'number') return Number.isInteger(v) ? { type: 'int', value: v } : { type: 'double', value: v }
    if (Array.isArray(v)) {
      const items = v.map(x => (typeof x === 'string' ? { text: x } : x)).map(x => tag(x).value)
      return { type: 'list', value: { type: 'compound', value: items } }
    }
    return { type: 'compound', value: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, tag(x)])) }
  }
  if (typeof component === 'string') return tag(component)
  return { type: 'compound', name: '', value: tag(component).value }
}

module.exports.nbtText = nbtText
