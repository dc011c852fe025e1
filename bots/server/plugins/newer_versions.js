'use strict'
// Packets whose shape changed after 1.21.4, the last version flying-squid 1.12.0 knows: what it
// writes and reads in the older shape, adapted to the served version (after versions.js, which
// handles the changes up to 1.21.4). Each change is found in the served version's protocol
// (minecraft-data), not in a table of versions:
// - `spawn_position` is 1.21.9's RespawnData ({globalPos: {dimensionName, location}, yaw,
//   pitch}): flying-squid's `{location}` threw at the login and at every respawn.
// - velocities (`entity_velocity`, `spawn_entity`) are 1.21.9's lpVec3 in blocks per tick:
//   flying-squid's 1/8000-block units would reach a vanilla client 8000 times too fast (a
//   dropped item or a knockback out of sight). mineflayer 4.39 still divides by 8000 at these
//   versions; our bodies read them right (bots/body/lib/version_compat.js).
// - `map_chunk` heightmaps are 1.21.5's typed list: flying-squid's NBT compound was written as
//   an empty list. The same (flat) motion-blocking heightmap flying-squid sends at 1.21.4 goes
//   in the new form.
// - `update_time` is 26.1's list of world clocks: flying-squid's `{age, time}` threw at the
//   login and at every day-cycle write, so no client learnt the time of day.
// - 26.1 attacks are an `attack` packet (`use_entity` lost its `mouse`): it is handed to
//   flying-squid as the `use_entity` attack it reads, so pvp, combat.js and reach.js see it.

module.exports.player = function (player, serv) {
  const protocol = serv.registry.protocol
  if (!protocol) return
  const toClient = protocol.play.toClient.types
  const toServer = protocol.play.toServer.types
  const respawnData = toClient.packet_spawn_position === 'RespawnData'
  const lpVelocity = fieldType(toClient.packet_entity_velocity, 'velocity') === 'lpVec3'
  const heightmapList = Array.isArray(fieldType(toClient.packet_map_chunk, 'heightmaps'))
  const clocks = fieldType(toClient.packet_update_time, 'clockUpdates') !== undefined
  const attackPacket = toServer.packet_attack !== undefined
  if (!respawnData && !lpVelocity && !heightmapList && !clocks && !attackPacket) return

  const overworldClock = clocks ? clockId(serv.registry.loginPacket, 'minecraft:overworld') : 0
  const write = player._client.write.bind(player._client)
  player._client.write = (name, params) => {
    if (!params) return write(name, params)
    if (respawnData && name === 'spawn_position' && params.location) {
      return write(name, { globalPos: { dimensionName: 'minecraft:overworld', location: params.location }, yaw: params.angle || 0, pitch: 0 })
    }
    if (lpVelocity && (name === 'entity_velocity' || name === 'spawn_entity') && params.velocity) {
      return write(name, { ...params, velocity: blocksPerTick(params.velocity) })
    }
    if (heightmapList && name === 'map_chunk' && params.heightmaps && !Array.isArray(params.heightmaps)) {
      return write(name, { ...params, heightmaps: [{ type: 'motion_blocking', data: new Array(37).fill([0, 0]) }] })
    }
    if (clocks && name === 'update_time' && params.clockUpdates === undefined) {
      const totalTicks = ticksOf(params.time)
      const rate = serv.doDaylightCycle === false ? 0 : 1
      return write(name, { age: params.age, clockUpdates: [{ id: overworldClock, totalTicks, partialTick: 0, rate }] })
    }
    return write(name, params)
  }

  if (attackPacket) {
    player._client.on('attack', (packet) => {
      if (packet && Number.isInteger(packet.entityId)) {
        player._client.emit('use_entity', { target: packet.entityId, mouse: 1, sneaking: false })
      }
    })
  }
}

function fieldType (packetType, field) {
  if (!Array.isArray(packetType) || packetType[0] !== 'container') return undefined
  const entry = packetType[1].find(f => f.name === field)
  return entry ? entry.type : undefined
}

// flying-squid's 1/8000 block per tick as blocks per tick
function blocksPerTick (v) {
  return { x: (v.x || 0) / 8000, y: (v.y || 0) / 8000, z: (v.z || 0) / 8000 }
}

// flying-squid writes an i64 as [high, low]
function ticksOf (time) {
  if (Array.isArray(time)) return time[0] * 4294967296 + (time[1] >>> 0)
  return Math.floor(Number(time) || 0)
}

// the index of a world clock in the login's world_clock registry (the order it is sent in)
function clockId (loginPacket, key) {
  const entries = loginPacket?.dimensionCodec?.['minecraft:world_clock']?.entries || []
  const i = entries.findIndex(e => e.key === key)
  return i < 0 ? 0 : i
}
