'use strict'
// Impostors: for each name, a raw minecraft-protocol client (offline mode, no proof of the
// run's body key) logs in under the name as given and under it in upper case. Prints
// {name: {asGiven, upperCase}}, each {refused: reason | null, inState, received: [packets]}:
// where it was dropped (login / play) and which play packets reached it (a refused login
// gets none: not the agent's position, not its inventory).
//   node impostors.js '{"port": 25565, "version": "1.21.4", "names": ["Ann", "Bob"]}'
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const mc = require(path.join(NM, 'minecraft-protocol'))

const opts = JSON.parse(process.argv[2])
const WITHIN_MS = 20000

function attempt (username) {
  return new Promise((resolve) => {
    const client = mc.createClient({ host: '127.0.0.1', port: opts.port, username, version: opts.version, auth: 'offline', hideErrors: true })
    const received = new Set()
    let refused = null
    let inState = null
    const done = () => { clearTimeout(timer); resolve({ refused, inState, received: [...received].sort() }) }
    const timer = setTimeout(() => { client.end(); done() }, WITHIN_MS)
    const text = (r) => (typeof r === 'string' ? r : JSON.stringify(r))
    client.on('packet', (data, meta) => {
      if (meta.state === 'play') received.add(meta.name)
      if (meta.name === 'disconnect' || meta.name === 'kick_disconnect') { refused = text(data.reason); inState = meta.state }
    })
    client.on('error', () => {})
    client.once('update_health', () => { client.end(); }) // logged in after all
    client.on('end', done)
  })
}

async function main () {
  const out = {}
  for (const name of opts.names) {
    out[name] = { asGiven: await attempt(name), upperCase: await attempt(name.toUpperCase()) }
  }
  process.stdout.write(JSON.stringify(out))
}

main().then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack)); process.exit(1) })
