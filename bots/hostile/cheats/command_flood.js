'use strict'
// A client sends 60 commands at once (each one the server parses and answers).
const names = require('../lib/names')

const COMMANDS = 60

function command (t, client, text) {
  if (t.version === '1.16.5') client.write('chat', { message: '/' + text })
  else client.write('chat_command', { command: text, timestamp: BigInt(Date.now()), salt: 0n, argumentSignatures: [], messageCount: 0, acknowledged: Buffer.alloc(3), checksum: 0 })
}

module.exports = {
  what: `a client sends ${COMMANDS} commands at once`,
  vanilla: 'kicked for spamming (commands count on the chat-spam counter); others keep playing',
  versions: null,
  async run (t) {
    const bystander = await t.join(t.name('bystand'))
    const spammer = await t.join(t.name('cmdspam'))
    let answers = 0
    spammer.on('packet', (data, meta) => { if (['chat', 'system_chat'].includes(meta.name)) answers++ })
    const { result: reason, lag } = await names.lagDuring(t, bystander, async () => {
      for (let i = 0; i < COMMANDS; i++) command(t, spammer, 'help')
      return names.droppedWithin(spammer, 5000)
    })
    const refusals = (await t.admin('GET', '/refusals')).byKind || {}
    const health = await t.admin('GET', '/health')
    return {
      refused: reason !== null && /spamming/.test(reason) && !bystander.ended && health.ok === true,
      detail: { reason, commandsSent: COMMANDS, answersBeforeKick: answers, bystanderStillOnline: !bystander.ended, commandSpamRefusals: refusals.command_spam || 0, ...lag }
    }
  }
}
