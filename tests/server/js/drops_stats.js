'use strict'
// Samples the drops plugin's dropsFor() (no server needed) and prints counts.
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const registry = require(path.join(NM, 'prismarine-registry'))('1.16.5')
const Block = require(path.join(NM, 'prismarine-block'))(registry)
const Item = require(path.join(NM, 'prismarine-item'))(registry)
const drops = require(path.resolve(__dirname, '../../../bots/server/plugins/drops.js'))
const serv = { registry, piano: {} }
drops.server(serv)
const { dropsFor } = serv.piano.drops
const n = 20000
function sample (name, held, props) {
  const b = registry.blocksByName[name]
  let state = b.defaultState
  if (props && props.age !== undefined) state = b.minStateId + props.age
  const block = Block.fromStateId(state, 0)
  const out = {}
  for (let i = 0; i < n; i++) {
    for (const d of dropsFor(block, held)) {
      const k = registry.items[d.id].name
      out[k] = (out[k] || 0) + d.count
    }
  }
  return out
}
const one = {
  n,
  oak_leaves: sample('oak_leaves', null),
  grass: sample('grass', null),
  wheat_ripe: sample('wheat', null, { age: 7 }),
  stone_by_hand: sample('stone', null),
  stone_pick: sample('stone', new Item(registry.itemsByName.wooden_pickaxe.id, 1))
}
one.wheat_ripe = { wheat: one.wheat_ripe.wheat }
process.stdout.write(JSON.stringify(one) + '\n')
