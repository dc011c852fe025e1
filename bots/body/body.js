'use strict'
// One agent's body: a mineflayer bot that reconnects, respawns and runs skills.
const rest = require('./lib/rest')
// before mineflayer loads its physics: a body at rest is not simulated, and the physics reads
// light blocks; too late once mineflayer's physics plugin was loaded (then body.js must be
// required first)
if (!rest.install()) throw new Error('bots/body/body.js was required after mineflayer\'s physics plugin: require it first (rest and light blocks need to patch prismarine-physics before)')
const mineflayer = require('mineflayer')
const { pathfinder: stockPathfinder } = require('mineflayer-pathfinder')
const { lightMovements, lightBlockAt } = require('./lib/light_blocks')
const toolPlugin = require('mineflayer-tool').plugin
const observe = require('./plugins/observe')
const events = require('./plugins/events')
const latePlayers = require('./plugins/late_players')
const { SkillRunner } = require('./plugins/runner')
const { fixDigSpeeds } = require('./lib/dig_speed')
const loginProof = require('./lib/login_proof')
const { withTolerance } = require('./lib/collide_epsilon')
const { recentMaxMs } = require('./lib/loop_watch')
const { fastFindBlocks } = require('./lib/scan')
const { skipUnread } = require('./lib/unread')
const lightBuffers = require('./lib/light_buffers')

withTolerance() // collide as a vanilla client does: a box on a block's face stays out of it
lightMovements() // the path search reads blocks by state id, not a Block per look-up
require('./lib/look_ahead').install() // the pathfinder's look-ahead stops after 3 s of simulated walk
require('./lib/framing').install() // frames split without an Error per socket read
require('./lib/lazy_light').install() // a chunk's light decoded when first read, not as it arrives
// a path kept when a block changes beside it but none of its moves changed
const pathfinder = require('./lib/path_keep').keepingPaths(stockPathfinder)

function seededRandom (seedText) {
  let h = 2166136261
  for (const ch of seedText) h = Math.imul(h ^ ch.charCodeAt(0), 16777619)
  let a = h >>> 0
  return () => { // mulberry32
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

class Body {
  /**
   * @param spec {name, host, port, version, spawn, keyFile (the run's body key file, or null)}
   * @param opts {stuckMs, reconnectBaseMs, reconnectMaxMs, viewDistance, seed}
   * @param emit (kind, data) => void           body events
   * @param emitOutcome (callId, outcome) => void
   * @param log (level, msg) => void
   */
  constructor (spec, opts, emit, emitOutcome, log) {
    this.spec = spec
    this.opts = opts
    this._emit = emit
    this.log = log
    this.bot = null
    this.connected = false
    this.quitting = false
    this.spawnedAt = 0
    this.everSpawned = false
    this.deaths = 0
    this.deadPending = false
    this.reconnecting = false
    this.reconnectAttempts = 0
    this.reconnectTimer = null
    this.chatLog = []
    this.random = seededRandom(`${opts.seed || 0}:${spec.name}`)
    this.runner = new SkillRunner(this, emitOutcome, { stuckMs: opts.stuckMs })
    this._firstSpawn = null
    this.viewer = null
  }

  emit (kind, data) { this._emit(kind, data || {}) }

  hear (sender, message, whisper) {
    this.chatLog.push({ sender, message, whisper, at: Date.now() / 1000 })
    if (this.chatLog.length > events.CHAT_LOG_MAX) this.chatLog.shift()
  }

  /** Connect; resolves on the first spawn, rejects after ``timeoutMs`` without one. */
  start (timeoutMs) {
    this._firstSpawn = {}
    const p = new Promise((resolve, reject) => { Object.assign(this._firstSpawn, { resolve, reject }) })
    this._firstSpawn.timer = setTimeout(() => {
      if (this.everSpawned) return
      this.quit()
      this._firstSpawn.reject(new Error(`${this.spec.name} did not spawn on ${this.spec.host}:${this.spec.port} within ${Math.round(timeoutMs / 1000)} s`))
    }, timeoutMs)
    this._connect()
    return p
  }

  _connect () {
    if (this.quitting) return
    lightBuffers.install(this.spec.version) // chunk light read as byte strings
    const bot = mineflayer.createBot({
      host: this.spec.host,
      port: this.spec.port,
      username: this.spec.name,
      version: this.spec.version,
      auth: 'offline',
      hideErrors: true,
      logErrors: false,
      viewDistance: this.opts.viewDistance || 'short',
      checkTimeoutInterval: 30000
    })
    this.bot = bot
    skipUnread(bot._client) // other players' head turns and arm swings: not parsed
    if (this.viewer) bot._client.pianoReadAll = true
    require('./lib/version_compat').install(bot) // what mineflayer reads wrong at newer versions
    // a server of this run asks at login for the proof that this name is this body's
    if (this.spec.keyFile) {
      try {
        loginProof.answerWith(bot._client, loginProof.readSecret(this.spec.keyFile), this.spec.name)
      } catch (err) { // without the proof the server refuses this name: said, not thrown
        this.log('error', `${this.spec.name}: cannot read the run's body key: ${err && err.message}`)
      }
    }
    bot.loadPlugin(pathfinder)
    require('./lib/replans').watch(bot) // PIANO_DEBUG_REPLANS: one line per A* search and why
    bot.loadPlugin(toolPlugin)
    // A* gets this many ms per physics tick and bot: small slices keep the shared
    // event loop (and so observations of every bot in this process) responsive.
    bot.once('inject_allowed', () => setImmediate(() => {
      if (bot.pathfinder) bot.pathfinder.tickTimeout = this.opts.pathTickMs || 10
      fixDigSpeeds(bot.registry) // 1.21.x: ores that need a stone pickaxe dug at hand speed
      fastFindBlocks(bot) // by state ids: mineflayer's built a Block per position searched
      // a block packet that arrives before the world exists (another body's dig animation,
      // sent to a body still joining) threw inside mineflayer's packet handler: the joining
      // body's connection broke and it never spawned ("did not spawn within 60 s")
      const blockAt = bot.blockAt
      bot.blockAt = (p, extra) => {
        if (!bot.world) return null
        // mineflayer's physics tick asks for the block at the body's own position only to see
        // whether its chunk is loaded (``bot.blockAt(bot.entity.position) == null``), 20 times
        // a second: a light block answers that without a full Block (its light decoded, biome,
        // block entity); nothing else asks with that very position object
        if (p === bot.entity?.position && extra === undefined) return lightBlockAt(bot, p)
        return blockAt(p, extra)
      }
    }))
    // a block's state (name, type, shapes, bounding box) without its light, biome or block
    // entity, for the skills' scans that read only those: about a tenth of bot.blockAt's cost
    bot.lightBlockAt = (p) => lightBlockAt(bot, p)
    // a body at rest wakes when a block near it changes or an effect comes or goes
    bot.on('blockUpdate', (old, now) => rest.wakeOnBlock(bot, (now || old) && (now || old).position))
    bot.on('chunkColumnLoad', (corner) => rest.wakeOnColumn(bot, corner))
    bot.on('entityEffect', (e) => { if (e === bot.entity) rest.wake(bot) })
    bot.on('entityEffectEnd', (e) => { if (e === bot.entity) rest.wake(bot) })
    observe.inject(bot, this)
    events.inject(bot, this)
    latePlayers.inject(bot)
    let ended = false
    bot.on('spawn', () => this._onSpawn(bot))
    bot.on('kicked', (reason) => {
      const text = typeof reason === 'string' ? reason : JSON.stringify(reason)
      this.emit('kicked', { reason: text.slice(0, 300) })
    })
    bot.on('error', (err) => this.log('debug', `${this.spec.name}: ${err && err.message}`))
    // when the connection times out: how long since a packet came in, and what this side
    // had queued to the server (a body whose host fell behind, or a server that did)
    let lastIn = Date.now()
    bot._client.on('packet', () => { lastIn = Date.now() })
    bot.on('end', (reason) => {
      if (ended) return
      ended = true
      const stall = {
        last_packet_s: Math.round((Date.now() - lastIn) / 100) / 10,
        queued_kb: Math.round(((bot._client.socket && bot._client.socket.writableLength) || 0) / 1024),
        // this process's longest event-loop delay of the last 10-20 s
        loop_delay_ms: recentMaxMs()
      }
      this._onEnd(bot, String(reason || 'ended'), stall)
    })
  }

  _onSpawn (bot) {
    if (bot !== this.bot) return
    if (this.viewer && this.viewer.bot !== bot) { this.viewer.bot = bot; this.viewer.rebind(bot) }
    const wasConnected = this.connected
    this.connected = true
    this.spawnedAt = Date.now()
    this.reconnectAttempts = 0
    if (!this.everSpawned) {
      this.everSpawned = true
      clearTimeout(this._firstSpawn.timer)
      this.emit('spawn', { position: this._pos() })
      if (this.spec.spawn) bot.chat(`/tp ${this.spec.spawn.join(' ')}`)
      this._firstSpawn.resolve()
    } else if (this.deadPending) {
      this.deadPending = false
      this.emit('respawn', { position: this._pos(), deaths: this.deaths })
    } else if (this.reconnecting && !wasConnected) {
      this.reconnecting = false
      this.emit('reconnected', { position: this._pos() })
    }
  }

  _pos () {
    const p = this.bot && this.bot.entity && this.bot.entity.position
    return p ? { x: p.x, y: p.y, z: p.z } : null
  }

  _onEnd (bot, reason, stall) {
    if (bot !== this.bot) return
    const was = this.connected
    this.connected = false
    this.runner.cancel('disconnected', 'disconnected')
    if (this.quitting) return
    if (was) this.emit('disconnected', { reason, ...stall })
    this.reconnecting = true
    const base = this.opts.reconnectBaseMs || 500
    const cap = this.opts.reconnectMaxMs || 10000
    const delay = Math.min(cap, base * 2 ** this.reconnectAttempts) * (0.5 + 0.5 * this.random())
    this.reconnectAttempts += 1
    this.log('info', `${this.spec.name}: connection ended (${reason}); reconnect #${this.reconnectAttempts} in ${Math.round(delay)} ms`)
    this.reconnectTimer = setTimeout(() => { this.reconnectTimer = null; this._connect() }, delay)
  }

  observe () { return observe.snapshot(this) }

  /** Serve a 3D view from this body's eyes on loopback (once; later calls reuse it). */
  async startViewer (opts) {
    if (!this.viewer) {
      const { BodyViewer } = require('./lib/viewer') // loaded only when someone looks
      const viewer = new BodyViewer(this, opts)
      viewer.bot = this.bot
      this.bot._client.pianoReadAll = true // the view shows other players' heads turn
      await viewer.start()
      this.viewer = viewer
    }
    return this.viewer.info()
  }

  stopViewer () {
    if (this.viewer) { this.viewer.close(); this.viewer = null }
  }

  /** Leave the server for good; resolves once the connection ended (or after 3 s). */
  quit () {
    this.quitting = true
    this.stopViewer()
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    this.runner.cancel('cancelled', 'body shut down')
    const bot = this.bot
    if (!bot) return Promise.resolve()
    return new Promise(resolve => {
      const t = setTimeout(resolve, 3000)
      bot.once('end', () => { clearTimeout(t); resolve() })
      try { bot.quit('bye') } catch (e) { clearTimeout(t); resolve() }
      try { if (!bot._client || bot._client.ended) { clearTimeout(t); resolve() } } catch (e) {}
    })
  }
}

module.exports = { Body }
