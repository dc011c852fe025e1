'use strict'
// Tab list for joining players. flying-squid 1.12.0 sends the full player
// list only to the *other* players when someone joins, so the newcomer never
// learns who is already online: mineflayer then sees them as entities with no
// type or username. Send the newcomer every online player (itself included)
// right before it is spawned for the others.
// Also: flying-squid's per-player latency timer keeps writing after the
// player left; make writes to a closed connection no-ops. At 1.20.2+ players also get their
// entity type (below). At 1.19.3+ a player who leaves is removed from the others' lists with
// `player_remove`, as vanilla does: flying-squid wrote a `player_info` with a `remove_player`
// flag, which that version's packet does not have, so no one learnt of a departure
// (mineflayer's `playerLeft` never came at 1.21.4).

module.exports.server = function (serv) {
  // 1.19.3+: the action is a set of flags, each entry has the fields of the flags set
  const bitfield = serv.supportFeature('playerInfoActionIsBitfield')
  const ACTION = bitfield ? { add_player: true, update_game_mode: true, update_listed: true, update_latency: true } : 'add_player'
  function entry (p) {
    const latency = p._client.latency || 0
    return bitfield
      ? { uuid: p.uuid, player: { name: p.username, properties: p.profileProperties || [] }, gamemode: p.gameMode, listed: 1, latency }
      : { uuid: p.uuid, name: p.username, properties: p.profileProperties || [], gamemode: p.gameMode, ping: latency }
  }
  // 1.20.2+ spawns players with spawn_entity, whose type flying-squid leaves null (0): other
  // players arrived as an unknown entity, invisible to bots. Give them the player type.
  const playerType = serv.supportFeature('unifiedPlayerAndEntitySpawnPacket') ? serv.registry.entitiesByName.player.id : null
  if (bitfield) {
    // flying-squid assigns its own at every login (login.js): keep this one
    const leave = (player) => player._writeOthers('player_remove', { players: [player.uuid] })
    Object.defineProperty(serv, '_sendPlayerEventLeave', { get: () => leave, set: () => {}, configurable: true })
  }
  serv.on('newPlayer', (player) => {
    if (playerType !== null) player.entityType = playerType
    const original = player.updateAndSpawn
    let first = true
    player.updateAndSpawn = function (...args) {
      if (first) {
        first = false
        const online = serv.players.filter(p => p.username && !p.disconnected)
        if (!online.includes(player) && player.username) online.push(player)
        if (online.length) player._client.write('player_info', { action: ACTION, data: online.map(entry) })
        // Another entity's updateAndSpawn between this player's creation and its login
        // (an item or mob spawning or moving, another player walking) sets both sides'
        // `nearbyEntities` without spawning anything: then neither would ever see the
        // other (measured: ~1 pair in 15 joining together). Spawn afresh both ways.
        player.nearbyEntities = []
        for (const other of serv.players) {
          if (other !== player && other.nearbyEntities) other.nearbyEntities = other.nearbyEntities.filter(e => e !== player)
        }
      }
      return original.apply(this, args)
    }
    player._client.once('end', () => {
      player._client.write = () => {}
    })
  })
}
