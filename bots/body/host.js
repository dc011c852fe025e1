'use strict'
// Body host: the object Python drives through JSPyBridge.
//
// Loaded by absolute path into the JSPyBridge Node process. Bots live either in
// this process (``bots_per_process: 0``) or in forked worker processes holding up
// to ``bots_per_process`` bots each. Every method takes and returns primitives
// (JSON strings) so that one Python call is one bridge round trip. Events and
// skill outcomes go back to Python in batches through the ``sink`` callback.
const path = require('path')
const cp = require('child_process')
const { BodyGroup } = require('./group')
const { describeSkills } = require('./skills')
const watchdog = require('./watchdog')
const logging = require('./lib/logging')
const { watchLoop } = require('./lib/loop_watch')

const OUTBOX_MAX = 20000
const FLUSH_MS = 5
const CALL_TIMEOUT_MS = 15000

const liveHosts = new Set()
let processSetup = false

function setupProcess () {
  if (processSetup) return
  processSetup = true
  logging.capture((level, msg) => {
    for (const host of liveHosts) { host.send({ type: 'log', level, msg }); break }
  })
  watchdog.install({ watchStdin: true, onGone: () => { for (const h of liveHosts) h.shutdown().catch(() => {}) } })
  watchLoop((level, msg) => { for (const host of liveHosts) { host.send({ type: 'log', level, msg }); break } },
    () => `the host process (${[...liveHosts].reduce((n, h) => n + h.botShard.size, 0)} bodies through it)`)
}

class LocalShard {
  constructor (opts, send) {
    this.group = new BodyGroup(opts, send)
    this.pid = process.pid
    this.count = 0
  }

  async call (method, args) { return this.group[method](...args) }
  async close () { await this.group.quitAll() }
}

/**
 * Node flags of a body worker: this process's, plus a CPU profile written into
 * ``PIANO_BODY_CPU_PROF_DIR`` when that is set (the profile of the body processes alone,
 * where NODE_OPTIONS would profile the servers too).
 */
function workerExecArgv () {
  const dir = process.env.PIANO_BODY_CPU_PROF_DIR
  return dir ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${dir}`] : process.execArgv
}

class ForkShard {
  constructor (opts, send, onExit) {
    this.count = 0
    this.pending = new Map()
    this.nextId = 1
    this.send = send
    this.exited = false
    this.child = cp.fork(path.join(__dirname, 'worker.js'), [JSON.stringify(opts)], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
      execArgv: workerExecArgv()
    })
    this.pid = this.child.pid
    this.ready = new Promise((resolve, reject) => {
      this.child.once('message', (m) => (m && m.ready ? resolve() : reject(new Error('worker did not start'))))
      this.child.once('exit', () => reject(new Error('worker exited during start')))
    })
    this.ready.catch(() => {})
    this.child.on('message', (m) => {
      if (m.batch) {
        for (const item of m.batch) this.send(item)
      } else if (m.id !== undefined) {
        const p = this.pending.get(m.id)
        if (!p) return
        this.pending.delete(m.id)
        clearTimeout(p.timer)
        if (m.ok) p.resolve(m.value)
        else p.reject(new Error(m.error))
      }
    })
    this.child.on('exit', (code, signal) => {
      this.exited = true
      for (const p of this.pending.values()) { clearTimeout(p.timer); p.reject(new Error('body worker exited')) }
      this.pending.clear()
      onExit(this, code, signal)
    })
  }

  async call (method, args, timeoutMs = CALL_TIMEOUT_MS) {
    await this.ready
    if (this.exited) throw new Error('body worker exited')
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`worker call ${method} timed out after ${timeoutMs} ms`))
      }, timeoutMs)
      this.pending.set(id, { resolve, reject, timer })
      this.child.send({ id, method, args })
    })
  }

  async close () {
    if (this.exited) return
    try { await this.call('quitAll', [], 5000) } catch (e) {}
    const exited = new Promise(resolve => this.child.once('exit', resolve))
    try { this.child.disconnect() } catch (e) {}
    const t = setTimeout(() => { try { this.child.kill('SIGKILL') } catch (e) {} }, 2000)
    await exited
    clearTimeout(t)
  }
}

class BodyHost {
  constructor (opts, sink) {
    setupProcess()
    this.opts = {
      botsPerProcess: opts.bots_per_process ?? 0,
      stuckMs: opts.stuck_ms ?? 20000,
      reconnectBaseMs: opts.reconnect_base_ms ?? 500,
      reconnectMaxMs: opts.reconnect_max_ms ?? 10000,
      viewDistance: opts.view_distance ?? 'short',
      seed: opts.seed ?? 0,
      spawnTimeoutMs: opts.spawn_timeout_ms ?? 30000,
      notableRadius: opts.notable_radius ?? 16,
      pathTickMs: opts.path_tick_ms ?? 10,
      hearingRadius: opts.hearing_radius ?? null
    }
    this.sink = sink
    this.outbox = []
    this.dropped = 0
    this.flushTimer = null
    this.inFlight = false
    this.closed = false
    this.shards = []
    this.botShard = new Map()
    this.local = null
    liveHosts.add(this)
  }

  // --- outbound (events, outcomes, logs) --------------------------------------

  send (message) {
    if (this.closed) return
    this.outbox.push(message)
    if (this.outbox.length > OUTBOX_MAX) { this.outbox.shift(); this.dropped++ }
    this._schedule()
  }

  _schedule () {
    if (this.flushTimer || this.inFlight) return
    this.flushTimer = setTimeout(() => this._flush(), FLUSH_MS)
  }

  _flush () {
    this.flushTimer = null
    if (this.outbox.length === 0 || this.closed) return
    const batch = this.outbox.splice(0, this.outbox.length)
    this.inFlight = true
    // One Python callback per batch; the next batch waits for this one (backpressure).
    Promise.resolve()
      .then(() => this.sink(JSON.stringify(batch)))
      .catch(() => {})
      .finally(() => {
        this.inFlight = false
        if (this.outbox.length) this._schedule()
      })
  }

  // --- shards ----------------------------------------------------------------

  _shardFor () {
    const per = this.opts.botsPerProcess
    if (!per || per <= 0) {
      if (!this.local) { this.local = new LocalShard(this.opts, m => this.send(m)); this.shards.push(this.local) }
      return this.local
    }
    let shard = this.shards.filter(s => !s.exited && s.count < per).sort((a, b) => a.count - b.count)[0]
    if (!shard) {
      shard = new ForkShard(this.opts, m => this.send(m), (s, code, signal) => this._onShardExit(s, code, signal))
      this.shards.push(shard)
    }
    return shard
  }

  _onShardExit (shard, code, signal) {
    this.shards = this.shards.filter(s => s !== shard)
    for (const [botId, s] of this.botShard) {
      if (s !== shard) continue
      this.botShard.delete(botId)
      if (!this.closed) {
        this.send({ type: 'event', bot: botId, kind: 'disconnected', at: Date.now() / 1000, data: { reason: `body worker exited (code ${code}, signal ${signal})`, fatal: true } })
      }
    }
  }

  _shardOf (botId) {
    const shard = this.botShard.get(botId)
    if (!shard) throw new Error(`no body "${botId}"`)
    return shard
  }

  // --- the API Python calls ---------------------------------------------------

  async spawnBot (botId, specJson) {
    try {
      if (this.botShard.has(botId)) throw new Error(`body "${botId}" already exists`)
      const spec = JSON.parse(specJson)
      const shard = this._shardFor()
      shard.count++
      this.botShard.set(botId, shard)
      try {
        await shard.call('spawnBot', [botId, spec, this.opts.spawnTimeoutMs], this.opts.spawnTimeoutMs + 5000)
      } catch (err) {
        shard.count--
        this.botShard.delete(botId)
        throw err
      }
      return JSON.stringify({ ok: true, pid: shard.pid })
    } catch (err) {
      return JSON.stringify({ ok: false, error: String(err && err.message ? err.message : err) })
    }
  }

  async observe (botId) {
    try {
      const obs = await this._shardOf(botId).call('observe', [botId])
      return JSON.stringify(obs)
    } catch (err) {
      return JSON.stringify({ error: String(err && err.message ? err.message : err) })
    }
  }

  /**
   * Snapshots of several bodies, answered later through the sink as
   * ``{type: 'observations', ticket, data: {id: snapshot | {error}}}``; the call itself
   * returns at once. The Python side gathers every observation asked for while the
   * previous batch was out, so 50 bodies cost one message per body worker, and its one
   * JSPyBridge call thread never waits for a busy worker (with a reply per call, runSkill
   * calls queued behind observations that waited for 25 walking bots' event loop).
   */
  observeMany (ticket, idsJson) {
    const ids = JSON.parse(idsJson)
    this._snapshots(ids).then(
      (data) => this.send({ type: 'observations', ticket, data }),
      (err) => this.send({ type: 'observations', ticket, error: String(err && err.message ? err.message : err) })
    )
    return 'started'
  }

  async _snapshots (ids) {
    const out = {}
    const byShard = new Map()
    for (const id of ids) {
      const shard = this.botShard.get(id)
      if (!shard) { out[id] = { error: `no body "${id}"` }; continue }
      if (!byShard.has(shard)) byShard.set(shard, [])
      byShard.get(shard).push(id)
    }
    await Promise.all([...byShard].map(async ([shard, some]) => {
      try {
        Object.assign(out, await shard.call('observeMany', [some]))
      } catch (err) {
        const error = String(err && err.message ? err.message : err)
        for (const id of some) out[id] = { error }
      }
    }))
    return out
  }

  /**
   * Start a skill; returns at once ('started', or 'error: ...' when there is no such body).
   * The body's worker reports the outcome through the sink; if the worker cannot start it
   * (gone, or not answering), the outcome is a failure said here.
   */
  runSkill (botId, callId, name, argsJson, timeoutMs) {
    let shard, args
    try {
      shard = this._shardOf(botId)
      args = JSON.parse(argsJson)
    } catch (err) {
      return `error: ${err && err.message ? err.message : err}`
    }
    const startedAt = Date.now() / 1000
    shard.call('runSkill', [botId, callId, name, args, timeoutMs]).catch((err) => {
      const reason = `body unavailable: ${err && err.message ? err.message : err}`
      this.send({ type: 'outcome', bot: botId, call_id: callId, outcome: { skill: name, success: false, reason: reason.slice(0, 300), failure: 'disconnected', started_at: startedAt, ended_at: Date.now() / 1000 } })
    })
    return 'started'
  }

  /** Cancel the running skill (its outcome, cancelled, comes through the sink). */
  cancelSkill (botId, reason) {
    const shard = this.botShard.get(botId)
    if (!shard) return 'false'
    shard.call('cancelSkill', [botId, reason]).catch(() => {})
    return 'true'
  }

  /** A 3D view from the body's eyes: ``{ok, port}`` (loopback), started once per body. */
  async startViewer (botId, optsJson) {
    try {
      const info = await this._shardOf(botId).call('startViewer', [botId, JSON.parse(optsJson || '{}')])
      return JSON.stringify({ ok: true, ...info })
    } catch (err) {
      return JSON.stringify({ ok: false, error: String(err && err.message ? err.message : err) })
    }
  }

  async quitBot (botId) {
    const shard = this.botShard.get(botId)
    if (!shard) return 'false'
    this.botShard.delete(botId)
    shard.count--
    try { await shard.call('quitBot', [botId], 8000) } catch (e) {}
    return 'true'
  }

  async shutdown () {
    if (this.closed) return 'closed'
    const shards = this.shards
    this.shards = []
    this.botShard.clear()
    await Promise.all(shards.map(s => s.close().catch(() => {})))
    this.closed = true
    if (this.flushTimer) clearTimeout(this.flushTimer)
    liveHosts.delete(this)
    return 'closed'
  }

  info () {
    return JSON.stringify({
      pid: process.pid,
      worker_pids: this.shards.filter(s => s instanceof ForkShard && !s.exited).map(s => s.pid),
      bots: this.botShard.size,
      dropped: this.dropped
    })
  }
}

function createHost (optsJson, sink) {
  return new BodyHost(JSON.parse(optsJson || '{}'), sink)
}

function skillTable () {
  return JSON.stringify(describeSkills())
}

module.exports = { createHost, skillTable, BodyHost }
