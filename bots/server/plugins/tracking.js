'use strict'
// Entity tracking as a vanilla server does it, in place of flying-squid's relay.
//
// flying-squid wrote every move of an entity at once to every player within 150 blocks, and
// found those players by scanning every entity of the world (players, animals, items) for
// each packet: a move cost O(entities) to address and O(players) to send.
//
// Here, as vanilla's entity tracker does:
// - a player tracks an entity while it stands within the entity's tracking range, capped by
//   the view distance: within a circle in x and z from 1.17 on (vanilla's TrackedEntity
//   checks dx^2 + dz^2 against the range squared), within a square before (1.16's
//   ChunkManager checked x and z apart). The ranges by kind are Spigot's defaults
//   (`entity-tracking-range`): players, animals and mobs 48 blocks, items 32, anything else
//   64, shorter than vanilla's own (it tracks players as far as the view distance), so that a
//   crowd costs less; a client here is told what a client of a default Spigot server would be
//   told. Beyond the range the player is told nothing of the entity.
// - entering the range the player is sent the entity's spawn (flying-squid's spawnEntity:
//   spawn packet, metadata, equipment; the metadata to that player only); leaving it, its
//   `entity_destroy`, several in one packet as vanilla does. Each tick the viewers are
//   brought up to date before the moves go out (as vanilla's ChunkMap.tick), so an entity
//   that jumps out of range is destroyed without its new position being sent.
// - positions and looks go out at the entity's update interval (players every 2 ticks,
//   animals and mobs every 3, as vanilla; items every 2: vanilla sends an item every 20 ticks
//   but also its velocity, from which the client simulates the fall, and this server sends no
//   velocity), and only when something changed since what that player was last told: a
//   relative move (1/4096 block steps, rounded as vanilla encodes them), a look, both in one
//   packet, or an absolute `entity_teleport` past 8 blocks. Every player's client is told
//   the steps from the position it was itself sent, so a player who started tracking the
//   entity in between is never off by the rounding of the others' steps.
// - every other packet flying-squid sends "to the players near" an entity (animations,
//   equipment, metadata, collects, destroys) goes to the players tracking it, without a scan.
// A refused move (movement.js) never changes the entity's position, so it is never relayed.
// Players that see nothing new get nothing and cost a comparison per tracked entity.
//
// `player.nearbyEntities` stays the list of entities the player's client has been spawned
// (flying-squid's logout and our respawn and player_list plugins read or reset it): an entity
// someone removed from it is taken as forgotten by the client and spawned again when in range.

const { share, writeFramed } = require('../shared_packets')

const RANGE = { player: 48, mob: 48, object: 32, other: 64 }
const INTERVAL = { player: 2, mob: 3, object: 2, other: 3 }
const CELL = 16 // grid cell (a chunk column), for finding the entities near a player
const MAX_STEP = 32767 // a relative move's largest step, in 1/4096 block (8 blocks)
const MOVE_PACKETS = new Set(['rel_entity_move', 'entity_move_look', 'entity_look', 'entity_head_rotation', 'entity_teleport'])

function kindOf (entity) {
  if (entity.type === 'player') return 'player'
  if (entity.type === 'mob') return 'mob'
  if (entity.type === 'object') return 'object'
  return 'other'
}

const fixed = (v) => Math.round(v * 4096)
const angle = (v) => (typeof v === 'number' ? v : 0)

module.exports.server = function (serv, settings) {
  const circle = serv.registry.version['>=']('1.17')
  const viewDistance = Number(settings['view-distance']) || 10
  // vanilla caps a tracking range at the chunks a player is sent: (view distance - 1) columns
  const cap = Math.max(16, (viewDistance - 1) * CELL)
  const rangeOf = (entity) => Math.min(RANGE[kindOf(entity)], cap)
  const maxRange = Math.min(Math.max(...Object.values(RANGE)), cap)
  let tickCount = 0
  let mark = 0
  const stats = { spawns: 0, destroys: 0, moves: 0, looks: 0, teleports: 0 }

  // a player is a viewer, and a player entity trackable, from its first updateAndSpawn (the
  // end of flying-squid's login, after its position and chunks were sent) until it leaves
  const isViewer = (p) => p.pianoTracking === true && !p.disconnected
  const trackable = (e) => e.type !== 'player' || isViewer(e)

  // what `viewer`'s client was told of `entity`: where (1/4096 blocks), look and ground
  function remember (viewer, entity) {
    viewer.pianoSeen.set(entity.id, {
      e: entity,
      x: fixed(entity.position.x),
      y: fixed(entity.position.y),
      z: fixed(entity.position.z),
      yaw: angle(entity.yaw),
      pitch: angle(entity.pitch),
      head: angle(entity.yaw),
      onGround: !!entity.onGround
    })
    entity.pianoViewers.add(viewer)
  }

  function forget (viewer, entity) {
    viewer.pianoSeen.delete(entity.id)
    entity.pianoViewers?.delete(viewer)
  }

  // flying-squid's spawnEntity sends the entity's metadata "to the players near" it: while it
  // runs, that is the new viewer only (the others were sent it when they started)
  function startTracking (viewer, entity) {
    remember(viewer, entity)
    entity.pianoSpawningFor = viewer
    try {
      viewer.spawnEntity(entity)
    } finally {
      entity.pianoSpawningFor = null
    }
    stats.spawns++
  }

  function syncNearby (viewer) {
    const list = []
    for (const s of viewer.pianoSeen.values()) list.push(s.e)
    viewer.nearbyEntities = list
  }

  // the entities by grid cell, rebuilt once a tick (a few hundred at most per shard)
  let grid = new Map()
  const cellKey = (cx, cz) => cx * 131072 + cz
  function buildGrid () {
    grid = new Map()
    for (const id in serv.entities) {
      const e = serv.entities[id]
      if (!e.position || !trackable(e)) continue
      const key = cellKey(Math.floor(e.position.x / CELL), Math.floor(e.position.z / CELL))
      const cell = grid.get(key)
      if (cell) cell.push(e)
      else grid.set(key, [e])
    }
  }

  const inRange = (viewer, e) => {
    const r = rangeOf(e)
    const dx = viewer.position.x - e.position.x
    const dz = viewer.position.z - e.position.z
    if (circle) return dx * dx + dz * dz <= r * r
    return dx >= -r && dx <= r && dz >= -r && dz <= r
  }

  // which entities `viewer` tracks now: spawn those that came in range, destroy those that
  // left it (or left the world)
  function updateViewer (viewer) {
    const stamp = ++mark
    const p = viewer.position
    const x0 = Math.floor((p.x - maxRange) / CELL)
    const x1 = Math.floor((p.x + maxRange) / CELL)
    const z0 = Math.floor((p.z - maxRange) / CELL)
    const z1 = Math.floor((p.z + maxRange) / CELL)
    let changed = false
    for (let cx = x0; cx <= x1; cx++) {
      for (let cz = z0; cz <= z1; cz++) {
        const cell = grid.get(cellKey(cx, cz))
        if (!cell) continue
        for (const e of cell) {
          if (e === viewer || e.world !== viewer.world || !inRange(viewer, e)) continue
          e.pianoMark = stamp
          if (!viewer.pianoSeen.has(e.id)) {
            startTracking(viewer, e)
            changed = true
          }
        }
      }
    }
    const gone = []
    for (const s of viewer.pianoSeen.values()) {
      if (s.e.pianoMark !== stamp) gone.push(s.e)
    }
    if (gone.length) {
      for (const e of gone) forget(viewer, e)
      viewer._client.write('entity_destroy', { entityIds: gone.map(e => e.id) })
      stats.destroys += gone.length
      changed = true
    }
    if (changed) syncNearby(viewer)
  }

  // what changed of `entity` since each viewer was told, sent to that viewer. Viewers told
  // the same before get the same packet object (usually all of them: they were sent the same
  // steps), serialized and framed once for all and written to each socket as it is
  // (../shared_packets.js)
  function flush (entity) {
    const entityId = entity.id
    const pos = entity.position
    const x = fixed(pos.x)
    const y = fixed(pos.y)
    const z = fixed(pos.z)
    const yaw = angle(entity.yaw)
    const pitch = angle(entity.pitch)
    const head = yaw
    const onGround = !!entity.onGround
    let teleport = null
    let moveLook = null
    let rel = null
    let look = null
    let headTurn = null
    for (const viewer of entity.pianoViewers) {
      const s = viewer.pianoSeen.get(entityId)
      if (!s) continue
      const dX = x - s.x
      const dY = y - s.y
      const dZ = z - s.z
      const moved = dX !== 0 || dY !== 0 || dZ !== 0 || onGround !== s.onGround
      const looked = yaw !== s.yaw || pitch !== s.pitch
      const client = viewer._client
      if (Math.abs(dX) > MAX_STEP || Math.abs(dY) > MAX_STEP || Math.abs(dZ) > MAX_STEP) {
        teleport = teleport || share({ entityId, x: pos.x, y: pos.y, z: pos.z, yaw, pitch, onGround })
        client.write('entity_teleport', teleport) // versions.js reshapes it from 1.21.2 on
        stats.teleports++
      } else if (moved && looked) {
        if (!moveLook || moveLook.dX !== dX || moveLook.dY !== dY || moveLook.dZ !== dZ) {
          moveLook = share({ entityId, dX, dY, dZ, yaw, pitch, onGround })
        }
        writeFramed(client, 'entity_move_look', moveLook)
        stats.moves++
      } else if (moved) {
        if (!rel || rel.dX !== dX || rel.dY !== dY || rel.dZ !== dZ) rel = share({ entityId, dX, dY, dZ, onGround })
        writeFramed(client, 'rel_entity_move', rel)
        stats.moves++
      } else if (looked) {
        look = look || share({ entityId, yaw, pitch, onGround })
        writeFramed(client, 'entity_look', look)
        stats.looks++
      }
      if (head !== s.head) {
        headTurn = headTurn || share({ entityId, headYaw: head })
        writeFramed(client, 'entity_head_rotation', headTurn)
      }
      s.x = x
      s.y = y
      s.z = z
      s.yaw = yaw
      s.pitch = pitch
      s.head = head
      s.onGround = onGround
    }
  }

  serv.on('tick', () => {
    tickCount++
    buildGrid()
    // the viewers first: an entity that left a player's range is destroyed for it, not moved
    for (const viewer of serv.players) if (isViewer(viewer)) updateViewer(viewer)
    for (const id in serv.entities) {
      const e = serv.entities[id]
      if (e.pianoViewers && e.pianoViewers.size && (tickCount + e.id) % INTERVAL[kindOf(e)] === 0) flush(e)
    }
  })

  // one entity's tracking brought up to date now (a login, a respawn, a new item or animal)
  function trackNow (entity) {
    if (entity.type === 'player') {
      // entities someone removed from the list (a respawn, a fresh login) are forgotten
      const listed = new Set(entity.nearbyEntities)
      for (const s of [...entity.pianoSeen.values()]) if (!listed.has(s.e)) forget(entity, s.e)
      entity.pianoTracking = true
    }
    for (const viewer of [...entity.pianoViewers]) {
      if (!viewer.nearbyEntities.includes(entity)) forget(viewer, entity)
    }
    if (entity.type === 'player') {
      buildGrid()
      updateViewer(entity)
    }
    if (!trackable(entity)) return
    for (const viewer of serv.players) {
      if (!isViewer(viewer) || viewer === entity || entity.world !== viewer.world) continue
      const tracked = viewer.pianoSeen.has(entity.id)
      const near = inRange(viewer, entity)
      if (near && !tracked) {
        startTracking(viewer, entity)
        syncNearby(viewer)
      } else if (!near && tracked) {
        forget(viewer, entity)
        viewer._client.write('entity_destroy', { entityIds: [entity.id] })
        stats.destroys++
        syncNearby(viewer)
      }
    }
  }

  serv.on('newEntity', (entity) => {
    entity.pianoViewers = new Set()
    if (entity.type === 'player') entity.pianoSeen = new Map()
    // flying-squid reads where the entity's tracking was last updated on every move: to update
    // it again 2 blocks on (a scan of the world; the tick does it here), and for a player to
    // send `update_view_position` when its chunk column differs (chunks.js does it, on a new
    // column only). Here that place is always where the entity stands: neither fires.
    Object.defineProperty(entity, 'lastPositionPlayersUpdated', { get: () => entity.position, set () {}, configurable: true })
    entity.updateAndSpawn = () => trackNow(entity)
    entity.getNearbyPlayers = () => [...entity.pianoViewers]
    entity.nearbyPlayers = () => [...entity.pianoViewers]
    entity._writeOthersNearby = (name, params) => {
      // moves and looks go out at the entity's update interval (flush)
      if (MOVE_PACKETS.has(name)) return
      if (entity.pianoSpawningFor) {
        entity.pianoSpawningFor._client.write(name, params)
        return
      }
      for (const viewer of entity.pianoViewers) viewer._client.write(name, params)
      if (name === 'entity_destroy' && params && Array.isArray(params.entityIds) && params.entityIds.includes(entity.id)) {
        for (const viewer of [...entity.pianoViewers]) {
          forget(viewer, entity)
          syncNearby(viewer)
        }
      }
    }
    entity._writeNearby = (name, params) => {
      if (entity.type === 'player' && !MOVE_PACKETS.has(name)) entity._client.write(name, params)
      entity._writeOthersNearby(name, params)
    }
    if (entity.type !== 'player') return
    // a player who leaves: flying-squid's logout destroys it for its nearbyPlayers() (the
    // players tracking it, above); here they and the player itself forget each other
    entity.once('disconnected', () => {
      for (const viewer of [...entity.pianoViewers]) {
        forget(viewer, entity)
        syncNearby(viewer)
      }
      for (const s of [...entity.pianoSeen.values()]) forget(entity, s.e)
    })
  })

  serv.piano = serv.piano || {}
  serv.piano.tracking = { stats, range: rangeOf, interval: (e) => INTERVAL[kindOf(e)] }
}
