'use strict'
// Respawn after death. The 1.16 protocol maps client_command's actionId to a
// string ('perform_respawn'), but flying-squid only handles the number 0, so
// dead players never came back. A player who quit while dead comes back with
// full health (otherwise mineflayer never emits `spawn`). The world around the
// respawn point is sent afresh (flying-squid sent nothing: its chunk bookkeeping
// still counted the chunks the client had dropped).

module.exports.player = function (player, serv) {
  player._client.on('client_command', (data) => {
    if (data.actionId !== 'perform_respawn') return // 0 is handled by flying-squid
    player.behavior('requestRespawn', {}, async () => {
      player._sendRespawn()
      if (serv.getSpawnPoint) {
        player.spawnPoint = await serv.getSpawnPoint(player.world)
        player.position = player.spawnPoint.clone()
      }
      player.sendSelfPosition()
      player.updateHealth(20)
      player.food = 20
      player.nearbyEntities = []
      player.updateAndSpawn()
      // a respawn packet makes a vanilla client drop its world: send it afresh (chunks.js)
      player._unloadAllChunks?.()
      player.worldSendRestOfChunks?.()
    })
  })
  player.once('asap', () => {
    const original = player.save
    player.save = () => {
      if (!(player.health > 0)) player.health = 20
      return original()
    }
  })
}

module.exports.server = function (serv) {
  serv.on('newPlayer', (player) => {
    // playerdata of a player saved while dead
    player.once('spawned', () => {
      if (!(player.health > 0)) player.updateHealth(20)
    })
  })
}
