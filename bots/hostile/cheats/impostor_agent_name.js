'use strict'
// A player logs in under the name of an agent that is online (offline mode: any client may
// claim any name): the finding, where the impostor spawned at Ann's place holding
// Ann's inventory while Ann's body stayed logged in.
const names = require('../lib/names')

module.exports = {
  what: "a client without the run's body key logs in under an online agent's name",
  vanilla: 'refused: names are authenticated (online mode); the agent stays as it was',
  versions: null,
  async run (t) {
    const name = t.name('agent')
    const agent = await names.joinAsBody(t, name)
    await t.admin('POST', '/command', { command: `/give ${name} bread 3` })
    await t.sync(agent)
    const before = await names.stateOf(t, name)
    const reason = await t.join(name, { expectRefusal: true })
    const after = await names.stateOf(t, name)
    const refusals = (await t.admin('GET', '/refusals')).byKind || {}
    return {
      refused: reason !== null && /belongs to an agent/.test(reason) && !agent.ended &&
        names.sameState(before, after) && after.online.length === 1 && (refusals.impostor || 0) > 0,
      detail: { reason, agentStillOnline: !agent.ended, before, after, impostorRefusals: refusals.impostor || 0 }
    }
  }
}
