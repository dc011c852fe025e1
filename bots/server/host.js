'use strict'
// Entry point of the embedded Minecraft server: flying-squid 1.12.0 at
// Minecraft settings.version with our settings and plugins, on a generated village.
//
//   node host.js '<settings JSON>'    or    node host.js /path/to/settings.json
//
// settings (all optional except worldDir):
//   worldDir, host ("127.0.0.1"), port (25565), motd, maxPlayers (60),
//   viewDistance (6), seed (0), layout ({} = default village), adminHost
//   ("127.0.0.1"), adminPort (0 = pick a free port, null = no admin API),
//   pregenRadius (chunks around spawn generated before READY, default 4),
//   parentPid (exit if that process goes away), difficulty (1), debug (false),
//   compressionThreshold (null: -1, no compression, on a loopback host; 256 on any other),
//   version (required: the Minecraft version served; a world keeps the one it was made with)
//
// Prints one line `PIANO_READY {json}` once a client can log in; the JSON has
// port, adminPort, seed, places, chests, startMs, worldGenMs.
// SIGTERM/SIGINT: saves players, containers and chunks, then exits 0.

const fs = require('fs')
const path = require('path')

const PLUGINS_DIR = path.join(__dirname, 'plugins')
const PLUGIN_ORDER = [
  'versions', // packets whose shape changed after 1.16 (position at 1.21.2+)
  'newer_versions', // packets whose shape changed after 1.21.4 (spawn position, velocities, 26.1's clocks and attacks)
  'refusals', // one count of what the server refused a player (serv.piano.refuse, GET /refusals)
  'sync', // a client's round trip (plugin message piano:sync): the hostile-client suite's t.sync
  'world_state', // persistence of our own data (containers, time): first
  'names', // an agent's name is its body's (a proof at login); one name, one player; after world_state
  'compression', // network-compression-threshold: none on loopback unless asked (vanilla's 256 elsewhere)
  'floods', // chat spam counter, packet floods and malformed packets cost the sender its connection
  'chunk_saving', // no block change lost between two chunk saves (prismarine-world race)
  'batched_writes', // a turn's packets to a player in one system call; after world_state, which sets serv.piano
  'windows', // click protocol, cursor, transactions (replaces inventory.js clicks)
  'creative', // creative-only packets refused in survival and adventure; held slot within the hotbar
  'crafting',
  'chests',
  'furnaces',
  'drops',
  'items', // item physics and pickup (replaces flying-squid's entity tick), hand-over
  'eating', // a food used is eaten after 32 ticks (flying-squid ignored it)
  'commands',
  'player_list', // tab list for joining players (flying-squid bug)
  'respawn', // respawn after death (flying-squid bug)
  'teleport_confirm', // moves the client sent before it saw a teleport do not undo it
  'movement', // speed, flying and moves into blocks refused as vanilla does; after teleport_confirm (its stale moves are not judged)
  'chunks', // chunks follow a teleport / jump (flying-squid skipped them while a send ran)
  'tracking', // entities relayed as vanilla's tracker does: by range and update interval, to the players tracking them
  'combat', // weapon damage, knockback, killed mobs removed, loot
  'reach', // vanilla reach for digging: a dig from farther than 6 blocks is refused
  'village', // spawn point, animals
  'wild', // animals of the wild beyond the village
  'restore', // put the generated blocks back in an area (benchmark rounds)
  'stalls', // why a player times out (logged: what was queued to it, the loop's delay)
  'admin_api'
]

function readSettings (arg) {
  if (!arg) throw new Error('usage: node host.js <settings JSON | settings file>')
  const text = arg.trim().startsWith('{') ? arg : fs.readFileSync(arg, 'utf8')
  const s = JSON.parse(text)
  if (!s.worldDir) throw new Error('settings.worldDir is required')
  if (!s.version) throw new Error('settings.version is required (bots/server_host.py passes DEFAULT_VERSION unless told another)')
  return {
    host: '127.0.0.1',
    port: 25565,
    motd: 'PIANO village',
    maxPlayers: 60,
    viewDistance: 6,
    seed: 0,
    layout: {},
    adminHost: '127.0.0.1',
    adminPort: 0,
    pregenRadius: 4,
    parentPid: null,
    difficulty: 1,
    debug: false,
    ...s
  }
}

// The world folder remembers the seed and layout it was generated with: a
// restart continues the same world even if the caller passes other values.
function worldIdentity (settings) {
  fs.mkdirSync(settings.worldDir, { recursive: true })
  const file = path.join(settings.worldDir, 'village.json')
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'))
    if (saved.seed !== settings.seed || JSON.stringify(saved.layout) !== JSON.stringify(settings.layout)) {
      console.log(`[piano] world ${settings.worldDir} exists: keeping its seed ${saved.seed} and layout`)
    }
    const version = saved.version || '1.16.5' // worlds made before village.json kept a version
    if (version !== settings.version) throw new Error(`world ${settings.worldDir} was made at Minecraft ${version}, not ${settings.version}`)
    return { seed: saved.seed, layout: saved.layout, version, fresh: false }
  }
  fs.writeFileSync(file, JSON.stringify({ seed: settings.seed, layout: settings.layout, version: settings.version }, null, 2))
  return { seed: settings.seed, layout: settings.layout, version: settings.version, fresh: true }
}

async function main () {
  const t0 = Date.now()
  const settings = readSettings(process.argv[2])
  const identity = worldIdentity(settings)
  const log = (msg) => console.log(`[piano] ${msg}`)

  // one process-level error policy (flying-squid's errorHandler would add two
  // listeners per player and exit on the first error: disabled via `debug`)
  process.setMaxListeners(0)
  process.on('uncaughtException', (err) => log(`uncaught exception: ${err && err.stack}`))
  process.on('unhandledRejection', (err) => log(`unhandled rejection: ${err && (err.stack || err)}`))

  const plugins = {}
  for (const name of PLUGIN_ORDER) plugins[path.join(PLUGINS_DIR, name + '.js')] = {}

  // flying-squid's and the chunk store's version tables end at 1.21.4 (compat/flying_squid.js)
  require('./compat/flying_squid').allowVersion(identity.version)
  // chunk light written as byte strings, frames split without an exception per read
  require('../body/lib/light_buffers').install(identity.version)
  require('../body/lib/framing').install()
  // a chunk column sent to many players is dumped, serialized and compressed once
  require('./chunk_sends').install()
  // a move the tracker tells many players is serialized once
  require('./shared_packets').install()
  // a section's fluid count kept without a Block built per block set (26.1's sections)
  require('./fluid_counts').install()
  const mcServer = require('flying-squid')
  const serv = mcServer.createMCServer({
    version: identity.version,
    'online-mode': false,
    host: settings.host,
    port: settings.port,
    motd: settings.motd,
    'max-players': settings.maxPlayers,
    'view-distance': settings.viewDistance,
    worldFolder: settings.worldDir,
    generation: {
      name: path.join(__dirname, 'generator', 'index.js'),
      options: { seed: (identity.seed | 0) || 1, villageSeed: identity.seed, layout: identity.layout }
    },
    gameMode: 0,
    difficulty: settings.difficulty,
    'everybody-op': false,
    logging: false,
    kickTimeout: 30000,
    plugins,
    modpe: false,
    'player-list-text': { header: { text: settings.motd }, footer: { text: 'PIANO embedded server' } },
    'max-entities': 1000,
    debug: settings.debug ? (msg) => console.log(`[debug] ${msg}`) : () => {},
    piano: { ...settings, seed: identity.seed, layout: identity.layout }
  })

  let stopping = false
  async function shutdown (reason) {
    if (stopping) return
    stopping = true
    log(`stopping (${reason})`)
    const hard = setTimeout(() => { log('shutdown timed out; exiting'); process.exit(1) }, 8000)
    hard.unref()
    try {
      await Promise.all((serv.players || []).map(p => (p.pianoSaveNow ? p.pianoSaveNow() : p.save()).catch(e => log(`save ${p.username}: ${e}`))))
      if (serv.piano?.pendingSaves) await Promise.all([...serv.piano.pendingSaves])
      if (serv.piano?.saveState) await serv.piano.saveState()
      if (serv.piano?.saveChunks) await serv.piano.saveChunks()
      else if (serv.overworld) await serv.overworld.saveNow()
      for (const p of [...(serv.players || [])]) { try { p._client.end('Server stopped') } catch (e) {} }
      if (serv.pianoAdmin) serv.pianoAdmin.close()
    } catch (err) {
      log(`error while stopping: ${err && err.stack}`)
    }
    log('stopped')
    process.exit(0)
  }

  function installSignals () {
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
      process.removeAllListeners(sig) // flying-squid's exit-hook would exit before saving
      process.on(sig, () => shutdown(sig))
    }
  }
  installSignals()
  import('exit-hook').then(() => setImmediate(installSignals)).catch(() => {})

  if (settings.parentPid) {
    const parent = settings.parentPid
    setInterval(() => {
      let alive = process.ppid === parent
      if (alive) { try { process.kill(parent, 0) } catch (e) { alive = false } }
      if (!alive) shutdown('parent process gone')
    }, 1000).unref()
  }

  let ready = false
  serv.on('error', (err) => {
    log(`server error: ${err && err.stack}`)
    if (!ready && err && (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL')) {
      console.error(`[piano] cannot listen on ${settings.host}:${settings.port}: ${err.code}`)
      process.exit(3)
    }
  })
  await serv.waitForReady(60000)
  ready = true
  installSignals()
  const tReady = Date.now()
  const { getPlan } = require('./generator')
  const plan = getPlan({ seed: identity.seed, layout: identity.layout, registry: serv.registry }).summary()
  // generate (or load) the chunks around spawn before announcing readiness
  const r = settings.pregenRadius
  const sx = Math.floor(plan.spawn.x / 16)
  const sz = Math.floor(plan.spawn.z / 16)
  const tGen = Date.now()
  const jobs = []
  for (let x = sx - r; x < sx + r; x++) for (let z = sz - r; z < sz + r; z++) jobs.push(serv.overworld.getColumn(x, z))
  await Promise.all(jobs)
  const worldGenMs = Date.now() - tGen
  if (serv.piano?.afterWorldReady) await serv.piano.afterWorldReady()
  const info = {
    port: serv.listeningPort ?? settings.port,
    host: settings.host,
    adminPort: serv.pianoAdmin ? serv.pianoAdmin.port : null,
    seed: identity.seed,
    version: identity.version,
    freshWorld: identity.fresh,
    places: plan.places,
    chests: plan.chests,
    spawn: plan.spawn,
    startMs: Date.now() - t0,
    listenMs: tReady - t0,
    worldGenMs,
    pregenChunks: jobs.length
  }
  log(`village ready on ${settings.host}:${info.port} (seed ${identity.seed}, ${jobs.length} chunks in ${worldGenMs} ms)`)
  process.stdout.write('PIANO_READY ' + JSON.stringify(info) + '\n')
}

main().catch((err) => {
  console.error(`[piano] failed to start: ${err && err.stack}`)
  process.exit(2)
})
