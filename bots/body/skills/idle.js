'use strict'
// idle: stay put for a while (cancellable).
const { sleep } = require('../lib/util')

module.exports = {
  stationary: true,
  args: {
    seconds: { type: 'number', default: 5.0 }
  },
  async run (ctx, { seconds }) {
    const end = Date.now() + seconds * 1000
    while (Date.now() < end) {
      await sleep(Math.min(1000, end - Date.now()), ctx.signal)
      ctx.progress(1 - (end - Date.now()) / (seconds * 1000 || 1), 'idle')
    }
    return {}
  }
}
