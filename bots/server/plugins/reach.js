'use strict'
// Vanilla reach for digging: a player may break only a block whose centre is within 6
// blocks of its eyes, as a vanilla 1.16 server checks (distance from feet + 1.5 to the
// block's centre, squared, > 36: refused). flying-squid checked nothing, so a modified
// client could dig through walls from any distance. A refused dig is cancelled (the
// player is sent the block as it is, the digger's client sees it come back) and counted.
// Our bodies check reach themselves before digging; this holds for any other client.

const MAX_REACH_SQ = 36

function tooFar (player, position) {
  const p = player.position
  const dx = p.x - (position.x + 0.5)
  const dy = p.y - (position.y + 0.5) + 1.5
  const dz = p.z - (position.z + 0.5)
  return dx * dx + dy * dy + dz * dz > MAX_REACH_SQ
}

module.exports.server = function (serv) {
  serv.piano = serv.piano || {}
  serv.piano.refusedDigs = 0
}

module.exports.player = function (player, serv) {
  player.on('dug_cancel', ({ position, block }, cancel) => {
    if (!tooFar(player, position)) return
    // not flying-squid's own cancel callback: it sends the block's id where the packet wants
    // a state id (the digger's client saw another block, air for a sponge)
    cancel(false)
    player._client.write('block_change', { location: position, type: block.stateId })
    serv.piano.refusedDigs++
    serv.info?.(`refused a dig out of reach by ${player.username} at ${position}`)
  })
}

module.exports.tooFar = tooFar
