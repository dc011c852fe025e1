'use strict'
// Worker process: hosts a group of bodies for the host (host.js) over a Node IPC channel.
//
// Parent -> worker: {id, method, args}     worker -> parent: {id, ok, value|error}
// Worker -> parent (unsolicited): {batch: [event | outcome | log, ...]}
const { BodyGroup } = require('./group')
const watchdog = require('./watchdog')
const logging = require('./lib/logging')
const { watchLoop } = require('./lib/loop_watch')

const opts = JSON.parse(process.argv[2] || '{}')
const outbox = []
let flushScheduled = false

function flush () {
  flushScheduled = false
  if (!process.connected || outbox.length === 0) return
  const batch = outbox.splice(0, outbox.length)
  process.send({ batch })
}

function send (message) {
  outbox.push(message)
  if (outbox.length > 20000) outbox.shift()
  if (!flushScheduled) {
    flushScheduled = true
    setTimeout(flush, 5)
  }
}

logging.capture((level, msg) => send({ type: 'log', level, msg }))
const group = new BodyGroup(opts, send)
watchLoop((level, msg) => send({ type: 'log', level, msg }), () => `${group.bodies.size} bodies, ${group.describeLoad()}`)
watchdog.install({ watchIpc: true, onGone: () => group.quitAll().catch(() => {}) })

process.on('message', async ({ id, method, args }) => {
  try {
    if (!['spawnBot', 'observe', 'observeMany', 'runSkill', 'cancelSkill', 'startViewer', 'stopViewer', 'quitBot', 'quitAll'].includes(method)) {
      throw new Error(`unknown method ${method}`)
    }
    const value = await group[method](...args)
    if (process.connected) process.send({ id, ok: true, value })
  } catch (err) {
    if (process.connected) process.send({ id, ok: false, error: String(err && err.message ? err.message : err) })
  }
})
process.send({ ready: true, pid: process.pid })
