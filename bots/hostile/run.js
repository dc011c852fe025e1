'use strict'
// Runs cheats of the hostile-client catalogue (bots/hostile/cheats/<id>.js) against one
// running embedded server, one after another, each with fresh usernames and its own
// clients, and prints one line per cheat:
//   HOSTILE {"id", "version", "refused": bool, "detail": {...}, "ms", "what", "vanilla"}
// (`"skipped": true` for a cheat that does not apply at the version, `"error"` when the cheat
// itself failed: then refused is false, nothing was shown to be refused).
//
//   node run.js '<settings JSON>'    settings: port, version (required), host ("127.0.0.1"),
//   adminPort, adminTokenFile (the admin API's token, read from its file: never in argv),
//   cheats (ids to run; null or absent = all), timeoutMs (per cheat, 60000)

const fs = require('fs')
const path = require('path')
const { createHarness } = require('./harness')

const CHEATS_DIR = path.join(__dirname, 'cheats')

function catalogue () {
  return fs.readdirSync(CHEATS_DIR).filter(f => f.endsWith('.js')).map(f => f.slice(0, -3)).sort()
}

function withTimeout (promise, ms, what) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

async function runOne (id, settings, adminToken) {
  const cheat = require(path.join(CHEATS_DIR, id + '.js'))
  const line = { id, version: settings.version, what: cheat.what, vanilla: cheat.vanilla }
  if (Array.isArray(cheat.versions) && !cheat.versions.includes(settings.version)) {
    return { ...line, skipped: true, refused: null, detail: {}, ms: 0 }
  }
  const t = createHarness({
    host: settings.host || '127.0.0.1',
    port: settings.port,
    version: settings.version,
    adminPort: settings.adminPort,
    adminToken,
    log: (msg) => process.stderr.write(`[hostile ${id}] ${msg}\n`)
  })
  const t0 = Date.now()
  try {
    const out = await withTimeout(cheat.run(t), settings.timeoutMs || 60000, id)
    if (!out || typeof out.refused !== 'boolean') throw new Error('a cheat returns { refused: bool, detail }')
    return { ...line, refused: out.refused, detail: out.detail || {}, ms: Date.now() - t0 }
  } catch (err) {
    return { ...line, refused: false, error: String(err && err.stack ? err.stack : err).slice(0, 1000), detail: {}, ms: Date.now() - t0 }
  } finally {
    await t.closeAll().catch(() => {})
  }
}

async function main () {
  const arg = process.argv[2]
  if (!arg) throw new Error("usage: node run.js '<settings JSON>'")
  const settings = JSON.parse(arg)
  if (!settings.port || !settings.version) throw new Error('settings.port and settings.version are required')
  const adminToken = settings.adminTokenFile ? fs.readFileSync(settings.adminTokenFile, 'utf8').trim() : null
  const all = catalogue()
  const ids = settings.cheats || all
  for (const id of ids) if (!all.includes(id)) throw new Error(`no cheat ${id} in ${CHEATS_DIR}`)
  for (const id of ids) {
    const result = await runOne(id, settings, adminToken)
    process.stdout.write('HOSTILE ' + JSON.stringify(result) + '\n')
  }
}

process.on('unhandledRejection', (err) => process.stderr.write(`[hostile] unhandled rejection: ${err && err.stack}\n`))
main().then(() => process.exit(0), (err) => {
  process.stderr.write(`[hostile] ${err && err.stack}\n`)
  process.exit(2)
})
