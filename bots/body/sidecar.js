'use strict'
// JSON-lines sidecar: the body host driven over stdin/stdout (the second transport).
//
//   node sidecar.js '<host options JSON>'
//   stdin  (Python -> Node): {"id": n, "method": "observe", "args": [...]}
//   stdout (Node -> Python): {"id": n, "ok": true, "value": ...} | {"id": n, "ok": false, "error": "..."}
//                            {"batch": "<JSON array of events, outcomes, logs>"}  {"ready": true, "pid": n}
// Nothing else may be written to stdout (console output is routed into log batches).
// The watchdog in host.js exits when stdin closes or the parent process goes away.
const readline = require('readline')
const { createHost } = require('./host')

const METHODS = new Set(['spawnBot', 'observe', 'observeMany', 'runSkill', 'cancelSkill', 'startViewer', 'quitBot', 'shutdown', 'info'])

function write (obj) {
  return new Promise(resolve => process.stdout.write(JSON.stringify(obj) + '\n', resolve))
}

// The host waits for each sink call before sending the next batch: resolve once written.
const host = createHost(process.argv[2] || '{}', (batchJson) => write({ batch: batchJson }))

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
lines.on('line', async (line) => {
  let request
  try {
    request = JSON.parse(line)
  } catch (err) {
    return
  }
  const { id, method, args } = request
  try {
    if (!METHODS.has(method)) throw new Error(`unknown method ${method}`)
    const value = await host[method](...(args || []))
    await write({ id, ok: true, value })
  } catch (err) {
    await write({ id, ok: false, error: String(err && err.message ? err.message : err) })
  }
})
write({ ready: true, pid: process.pid })
