'use strict'
// lib/container.js's transfer against a fake chest whose slots change under the first try:
// another player took the stack this body read, so mineflayer's withdraw finds none of the item
// ("Can't find ... in slots"). Prints, as JSON, the transfer's result or its error, and how
// many times the chest was opened again.
const path = require('path')
const { transfer } = require(path.resolve(__dirname, '../../../bots/body/lib/container.js'))

const [failures] = process.argv.slice(2).map(a => JSON.parse(a))
const held = []
let opened = 0
let tries = 0
function chest () {
  return {
    async withdraw (id, metadata, count) {
      if (++tries <= failures) throw new Error(`Can't find cobblestone in slots [0 - 27], (item id: ${id})`)
      held.push({ name: 'cobblestone', count })
    },
    close () {}
  }
}
const bot = {
  registry: { itemsByName: { cobblestone: { id: 1 } } },
  inventory: { items: () => held },
  async openContainer () { opened++; return chest() }
}
const ctx = { bot, progress () {}, check () {} }

transfer(ctx, chest(), { position: { x: 1, y: 2, z: 3 } }, 'withdraw', 'cobblestone', 3)
  .then((result) => ({ result }), (err) => ({ error: String(err.message), kind: err.kind, lacking: err.detail && err.detail.lacking }))
  .then((out) => { process.stdout.write(JSON.stringify({ ...out, opened }) + '\n') })
