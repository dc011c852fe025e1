'use strict'
// Tab list for joining players. flying-squid 1.12.0 sends the full player
// list only to the *other* players when someone joins, so the newcomer never
// learns who is already online: mineflayer then sees them as entities with no
// type or username. Send the newcomer every online player (itself included)
// right before it is spawned for the others.
// Also: flying-squid's per-player latency timer keeps writing after the
// player left; make writes to a closed connection no-ops.

module.exports.server = function (serv) {
  function entry (p) {
    return { uuid: p.uuid, name: p.username, properties: p.profileProperties || [], gamemode: p.gameMode, ping: p._client.latency || 0 }
  }
  serv.on('newPlayer', (player) => {
    const original = player.updateAndSpawn
    let first = true
    player.updateAndSpawn = function (...args) {
      if (first) {
        first = false
        const online = serv.players.filter(p => p.username && !p.disconnected)
        if (!online.includes(player) && player.username) online.push(player)
        if (online.length) player._client.write('player_info', { action: 'add_player', data: online.map(entry) })
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
