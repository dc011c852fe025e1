'use strict'
// A second client logs in under the name of a player already online (a guest name, not an
// agent's; and the same name in another case): flying-squid made a second player of the
// same name, splitting chat, the tab list and the saved file between two connections.
const names = require('../lib/names')

module.exports = {
  what: 'a second client logs in under a name already online (and in another letter case)',
  vanilla: 'never two players of one name (vanilla kicks the older connection of the same account)',
  versions: null,
  async run (t) {
    const name = t.name('Guest')
    const first = await t.join(name)
    await t.sync(first)
    const before = await names.stateOf(t, name)
    const same = await t.join(name, { expectRefusal: true })
    const upper = await t.join(name.toUpperCase(), { expectRefusal: true })
    await t.sync(first)
    const after = await names.stateOf(t, name)
    const refusals = (await t.admin('GET', '/refusals')).byKind || {}
    return {
      refused: same !== null && upper !== null && /already playing/.test(same) && !first.ended &&
        names.sameState(before, after) && after.online.length === 1,
      detail: { same, upper, firstStillOnline: !first.ended, before, after, duplicateRefusals: refusals.duplicate_login || 0 }
    }
  }
}
