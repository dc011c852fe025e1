'use strict'
// Chunks follow the player after a jump (teleport, /tp, respawn, a fast move).
//
// flying-squid sends the chunks around a player when a 'move' finds it 16 blocks
// from the last send. But 'move' is emitted before the entity's position is
// updated (behavior.js: the event, then onSuccess), so a teleport's own move still
// saw the old position and sent nothing; the client, standing in the air of a
// column it does not have, sends no further positions (mineflayer runs no physics
// there): no chunks ever came. Also a send asked for while one ran
// (`player.sendingChunks`, e.g. a /tp right after login) was dropped, and
// `update_view_position` was never sent on a jump. Here, on 'move_done' (after the
// update): the columns within the view distance are sent nearest first (the one
// underfoot at once), a send in progress starts over from the newest position when
// the player jumps again, the view centre is sent, columns out of view are unloaded.
// And a teleport or a walk during the end of the login is no longer undone by it (below).

const WALKED = 0.01 // blocks from the login position: the player has moved since

module.exports.player = function (player, serv) {
  // external plugins are injected before flying-squid's world.js: install once all are
  player.once('asap', () => install(player, serv))
}

function install (player, serv) {
  if (!player.worldSendRestOfChunks) return
  const VIEW = Number(serv.piano?.settings?.viewDistance) || 6
  let running = null
  let again = false

  function viewCentre () {
    const chunkX = Math.floor(player.position.x / 16)
    const chunkZ = Math.floor(player.position.z / 16)
    if (player.pianoViewCentre === `${chunkX},${chunkZ}`) return
    player.pianoViewCentre = `${chunkX},${chunkZ}`
    player._client.write('update_view_position', { chunkX, chunkZ })
  }

  // the columns within the view around the player, nearest first; starts over from the
  // newest position as soon as the player jumps again
  async function sendAround () {
    for (;;) {
      again = false
      const view = Math.max(2, Math.min(player.view || VIEW, VIEW))
      const cx = Math.floor(player.position.x / 16)
      const cz = Math.floor(player.position.z / 16)
      player.lastPositionChunkUpdated = player.position
      viewCentre()
      for (const key of Object.keys(player.loadedChunks)) {
        const [x, z] = key.split(',').map(Number)
        if (Math.abs(x - cx) > view || Math.abs(z - cz) > view) player._unloadChunk(x, z)
      }
      const wanted = []
      for (let dx = -view; dx <= view; dx++) {
        for (let dz = -view; dz <= view; dz++) wanted.push([dx, dz])
      }
      wanted.sort((a, b) => (a[0] * a[0] + a[1] * a[1]) - (b[0] * b[0] + b[1] * b[1]))
      for (const [dx, dz] of wanted) {
        if (again) break
        const x = cx + dx
        const z = cz + dz
        if (!serv._worldLoadPlayerChunk(x, z, player)) continue // already sent
        const column = await player.world.getColumn(x, z)
        await player.sendChunk(x, z, column)
        await new Promise(resolve => setImmediate(resolve)) // others' turn between columns
      }
      if (!again) return
    }
  }

  player.worldSendRestOfChunks = function () {
    if (running) {
      again = true
      return running
    }
    player.sendingChunks = true
    running = sendAround().finally(() => {
      running = null
      player.sendingChunks = false
    })
    return running
  }
  player.worldSendAllChunks = player.worldSendRestOfChunks

  // flying-squid's login ends by resending the login position "so that it does not fall
  // through the world", when the client first sends a look-only or on-ground-only packet.
  // mineflayer (>= 1.12) sends neither while it walks, so that resend could come many
  // seconds in, when a body first turned its head standing still (to dig): it put the player
  // back where it had logged in, mid-task (a diamond dug from the square, then no pickup: the
  // CI run of e144e4c). A teleport in between (a body's /tp right after spawning, the admin
  // API) was undone the same way. Keep the jump; a player that walked keeps its place (its
  // client stands on the world it has: nothing to fall through).
  let loginEnding = false
  let jumped = false
  player.once('spawned', () => { loginEnding = true })
  const teleport = player.teleport
  player.teleport = (position) => {
    jumped = true
    return teleport(position)
  }
  const sendSelfPosition = player.sendSelfPosition
  player.sendSelfPosition = (position) => {
    if (loginEnding && position) {
      loginEnding = false
      if (jumped) return sendSelfPosition()
      if (player.position.distanceTo(position) > WALKED) return
    }
    return sendSelfPosition(position)
  }

  // 'move_done': flying-squid's own check runs on 'move', before the position is
  // updated, so it never saw a teleport's destination (the root of the missing world)
  player.on('move_done', () => {
    if (!player.lastPositionChunkUpdated) return
    if (player.position.distanceTo(player.lastPositionChunkUpdated) > 16) player.worldSendRestOfChunks()
    else viewCentre()
  })
}
