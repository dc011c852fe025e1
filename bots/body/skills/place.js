'use strict'
// place: put a block from the inventory at a position (or next to the bot).
const { placeItem } = require('../lib/place')
const { vec, toVec3 } = require('../lib/util')

module.exports = {
  args: {
    block: { type: 'string' },
    x: { type: 'number', default: null },
    y: { type: 'number', default: null },
    z: { type: 'number', default: null }
  },
  async run (ctx, { block, x, y, z }) {
    const target = (x != null && y != null && z != null) ? toVec3({ x, y, z }) : null
    ctx.progress(0, `placing ${block}`)
    const placed = await placeItem(ctx, block, target)
    return { detail: { placed: placed.name, at: vec(placed.position) } }
  }
}
