'use strict'
// whisper: send a private message to one player (server command /tell).
const { SkillError } = require('../lib/util')

module.exports = {
  stationary: true,
  args: {
    player: { type: 'string' },
    message: { type: 'string' }
  },
  async run (ctx, { player, message }) {
    const text = String(message).replace(/[\r\n]+/g, ' ').trim()
    if (!text) throw new SkillError('empty message', {}, 'bad_arguments')
    // the name goes into a /tell command: nothing but a Minecraft name may pass
    if (!/^[A-Za-z0-9_]{1,16}$/.test(String(player))) throw new SkillError(`not a player name: ${String(player).slice(0, 40)}`, {}, 'bad_arguments')
    // No "is online" check: the tab list is unreliable on some servers (BUGS_FROM_BODIES.md #1).
    ctx.bot.whisper(player, text)
    return { detail: { to: player, message: text } }
  }
}
