'use strict'
// chat: say something in public chat.
const { SkillError } = require('../lib/util')

module.exports = {
  name: 'chat',
  stationary: true,
  args: {
    message: { type: 'string' }
  },
  async run (ctx, { message }) {
    const text = String(message).replace(/[\r\n]+/g, ' ').trim()
    if (!text) throw new SkillError('empty message')
    ctx.bot.chat(text)
    return { detail: { message: text } }
  }
}
