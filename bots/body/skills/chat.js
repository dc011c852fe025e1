'use strict'
// chat: say something in public chat.
const { SkillError } = require('../lib/util')

module.exports = {
  stationary: true,
  args: {
    message: { type: 'string' }
  },
  async run (ctx, { message }) {
    const text = String(message).replace(/[\r\n]+/g, ' ').trim()
    if (!text) throw new SkillError('empty message', {}, 'bad_arguments')
    // words from a model or a player are never a server command
    if (text.startsWith('/')) throw new SkillError('a chat line may not start with "/"', { message: text }, 'bad_arguments')
    ctx.bot.chat(text)
    return { detail: { message: text } }
  }
}
