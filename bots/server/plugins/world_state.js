'use strict'
// Our own persistent world data, next to the Anvil files:
// <worldDir>/piano_state.json = { containers: { "x,y,z": {...} }, time }.
// Other plugins keep their data in serv.piano.state and call markDirty();
// the file is written (atomically) at most once a second and on shutdown.
// Also the hook list the host runs once the world is ready.

const fs = require('fs')
const path = require('path')

module.exports.server = function (serv, settings) {
  const piano = settings.piano || {}
  const file = settings.worldFolder ? path.join(settings.worldFolder, 'piano_state.json') : null
  let state = { containers: {}, time: null }
  if (file && fs.existsSync(file)) {
    try {
      state = { containers: {}, time: null, ...JSON.parse(fs.readFileSync(file, 'utf8')) }
    } catch (err) {
      serv.warn?.(`piano_state.json unreadable (${err}); starting empty`)
    }
  }

  let timer = null
  let writing = Promise.resolve()

  async function saveState () {
    if (timer) { clearTimeout(timer); timer = null }
    if (!file) return
    state.time = serv.time ?? state.time
    const text = JSON.stringify(state)
    writing = writing.then(async () => {
      const tmp = file + '.tmp'
      await fs.promises.writeFile(tmp, text)
      await fs.promises.rename(tmp, file)
    }).catch(err => serv.warn?.(`could not save piano_state.json: ${err}`))
    return writing
  }

  function markDirty () {
    if (timer || !file) return
    timer = setTimeout(() => { timer = null; saveState() }, 1000)
  }

  const readyHooks = []
  serv.piano = {
    settings: piano,
    state,
    markDirty,
    saveState,
    onWorldReady: (fn) => readyHooks.push(fn),
    afterWorldReady: async () => { for (const fn of readyHooks) await fn() }
  }

  // continue the day/night clock where it stopped
  serv.once('pluginsReady', () => {
    if (typeof state.time === 'number' && serv.setTime) serv.time = state.time
  })
  setInterval(() => { state.time = serv.time; markDirty() }, 30000).unref()
  // players' inventories are otherwise only saved when they leave
  setInterval(() => {
    for (const p of serv.players || []) p.save?.().catch(() => {})
  }, 30000).unref()
}
