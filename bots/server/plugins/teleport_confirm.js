'use strict'
// A client's moves sent before it saw a teleport do not undo the teleport.
//
// flying-squid applied every position packet from the client, also the ones the
// client sent before it had received a server-set position (a teleport, the login's
// position, a respawn). Worse, `sendPosition` skips a packet equal to the current
// position *before* its asynchronous 'move' ran, so with a stale move in flight the
// client's confirmation of the new place was skipped, and then the stale move
// landed: the server kept the player at the village while the client stood at the
// far destination with no world around it, forever (measured: 3-9 of 25 admin
// teleports to a ring 800 blocks out, on an idle machine).
//
// As a vanilla server does, moves from the client are ignored from the moment the
// server sends a position until the client confirms it (`teleport_confirm`; flying-
// squid gives every one the id 1, so they are counted). A client that never
// confirms is trusted again after CONFIRM_WAIT_MS.

const CONFIRM_WAIT_MS = 5000

module.exports.player = function (player, serv) {
  let pending = 0
  let lastSent = 0

  const write = player._client.write.bind(player._client)
  player._client.write = (name, params) => {
    if (name === 'position') {
      pending += 1
      lastSent = Date.now()
    }
    return write(name, params)
  }
  player._client.on('teleport_confirm', () => { pending = Math.max(0, pending - 1) })

  // 'move_cancel' listeners run synchronously when the packet is handled, so
  // `pending` is the state at the packet's arrival, not after other moves' awaits
  player.on('move_cancel', (data, cancel) => {
    if (data.teleport || pending === 0) return
    if (Date.now() - lastSent > CONFIRM_WAIT_MS) {
      pending = 0
      return
    }
    data.stale = true // for the checks after this one (movement.js): not the client's move to judge
    cancel(false) // dropped: no position sent back (that would need confirming too)
  })
}
