'use strict'
// A client sends 60 chat lines at once while a bystander listens.
const names = require('../lib/names')

const LINES = 60

function say (t, client, text) {
  if (t.version === '1.16.5') client.write('chat', { message: text })
  else client.chat(text)
}

module.exports = {
  what: `a client sends ${LINES} chat lines at once`,
  vanilla: "kicked for spamming (chat-spam counter: +20 a line, -1 a tick, over 200); others keep playing",
  versions: null,
  async run (t) {
    const bystander = await t.join(t.name('hearer'))
    const spammer = await t.join(t.name('chatty'))
    let heard = 0
    const tag = `flood${Date.now() % 100000}`
    bystander.on('packet', (data, meta) => {
      if (['chat', 'system_chat', 'player_chat', 'profileless_chat'].includes(meta.name) && JSON.stringify(data).includes(tag)) heard++
    })
    const { result: reason, lag } = await names.lagDuring(t, bystander, async () => {
      for (let i = 0; i < LINES; i++) say(t, spammer, `${tag} line ${i}`)
      return names.droppedWithin(spammer, 5000)
    })
    await t.sync(bystander)
    const refusals = (await t.admin('GET', '/refusals')).byKind || {}
    const health = await t.admin('GET', '/health')
    return {
      refused: reason !== null && /spamming/.test(reason) && heard <= 11 && !bystander.ended && health.ok === true,
      detail: { reason, linesSent: LINES, linesOthersHeard: heard, bystanderStillOnline: !bystander.ended, chatSpamRefusals: refusals.chat_spam || 0, ...lag }
    }
  }
}
