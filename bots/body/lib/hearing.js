'use strict'
// What a body hears of public chat: a line from a player within ``radius`` blocks of this
// body, measured from the speaker's position as this body's client knows it. A speaker the
// client does not track (too far to be sent to it) is not heard. ``radius`` null = every line
// the server delivers. Whispers (direct messages to a named player) do not pass through here.

/**
 * @param bot a mineflayer bot (``entity.position``, ``players[name].entity.position``)
 * @param sender the speaker's username
 * @param radius blocks, or null for no limit
 * @returns {boolean}
 */
function hears (bot, sender, radius) {
  if (radius === null || radius === undefined) return true
  const me = bot.entity
  const player = bot.players ? bot.players[sender] : undefined
  const them = player ? player.entity : undefined
  if (!me || !me.position || !them || !them.position) return false
  return me.position.distanceTo(them.position) <= radius
}

module.exports = { hears }
