'use strict'
// A player logs in under an agent's name in other letter cases ("ANN", "aNN" for "Ann"):
// offline UUIDs differ by case, so the server would make a second player that chat, /tell
// and the tab list show as the agent.
const names = require('../lib/names')

function otherCases (name) {
  const swapped = [...name].map(c => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
  return [...new Set([name.toUpperCase(), name.toLowerCase(), swapped])].filter(n => n !== name)
}

module.exports = {
  what: "a client logs in under an online agent's name in other letter cases",
  vanilla: "refused: a name is one player whatever its case (the agent's account owns it)",
  versions: null,
  async run (t) {
    const name = t.name('Agent')
    const agent = await names.joinAsBody(t, name)
    await t.admin('POST', '/command', { command: `/give ${name} oak_log 4` })
    await t.sync(agent)
    const before = await names.stateOf(t, name)
    const reasons = {}
    for (const other of otherCases(name)) reasons[other] = await t.join(other, { expectRefusal: true })
    const after = await names.stateOf(t, name)
    const allRefused = Object.values(reasons).every(r => r !== null && /another letter case|belongs to an agent/.test(r))
    return {
      refused: allRefused && !agent.ended && names.sameState(before, after) && after.online.length === 1,
      detail: { reasons, agentStillOnline: !agent.ended, before, after }
    }
  }
}
