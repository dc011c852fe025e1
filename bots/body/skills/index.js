'use strict'
// The skill table: every skill the Python side may request, keyed by name.
// Each skill file exports {args: {field: {type, default?}}, stationary?, run(ctx, args)}; the
// table adds its name, the file's.
const files = [
  'go_to', 'follow', 'explore', 'collect', 'craft', 'smelt', 'place', 'deposit',
  'withdraw', 'give', 'eat', 'equip', 'attack', 'idle', 'chat', 'whisper'
]

const SKILLS = {}
for (const f of files) SKILLS[f] = { name: f, ...require('./' + f) }

/** Plain description of the table (names, argument names, defaults) for the contract test. */
function describeSkills () {
  const out = {}
  for (const [name, skill] of Object.entries(SKILLS)) {
    out[name] = {}
    for (const [arg, spec] of Object.entries(skill.args)) {
      out[name][arg] = { type: spec.type, required: !('default' in spec), default: spec.default === undefined ? null : spec.default }
    }
  }
  return out
}

module.exports = { SKILLS, describeSkills }
