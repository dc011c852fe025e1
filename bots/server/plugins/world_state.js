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
    ...serv.piano, // what plugins before this one put there (refusals.js)
    settings: piano,
    worldFolder: settings.worldFolder || null,
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
    for (const p of serv.players || []) (p.pianoSaveNow ? p.pianoSaveNow() : p.save?.())?.catch(() => {})
  }, 30000).unref()
}

// A player's file (inventory, position) is written within SAVE_AFTER_MS of any change of its
// inventory, one write at a time: a server that is killed (SIGKILL, a crash) then loses at
// most that much of what players gathered, not the 30 s between two periodic saves (the
// fault suite checks that every body has its inventory back after kill_minecraft).
const SAVE_AFTER_MS = 200

module.exports.player = function (player, serv) {
  // a returning player: the world had its file before this login (the login writes one at
  // its end), so the runtime gives no starting kit again, whatever it holds (admin API)
  const dir = serv.piano && serv.piano.worldFolder
  const uuid = player._client && player._client.uuid
  player.pianoReturning = Boolean(dir && uuid && fs.existsSync(path.join(dir, 'playerdata', `${uuid}.dat`)))
  let timer = null
  let saving = Promise.resolve()
  function save () {
    if (timer) clearTimeout(timer)
    timer = null
    saving = saving.then(() => player.save?.()).catch(err => serv.warn?.(`save ${player.username}: ${err}`))
    return saving
  }
  player.pianoSaveNow = save // every write of this player's file goes through one chain
  const changed = () => { if (!timer) timer = setTimeout(save, SAVE_AFTER_MS) }
  player.on('piano_inventory_changed', changed) // windows.js: a slot set without a packet
  player.once('spawned', () => player.inventory?.on?.('updateSlot', changed))
  player.once('disconnected', () => { if (timer) clearTimeout(timer); timer = null })
}
