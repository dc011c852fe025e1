'use strict'
// A group of bodies living in one Node process. Used in-process by the host or inside a worker.
require('./lib/perf')
const { Body } = require('./body')
const { isResting } = require('./lib/rest')

class BodyGroup {
  /**
   * @param opts body options (see Body)
   * @param send (message) => void  receives {type:'event'|'outcome'|'log', ...}
   */
  constructor (opts, send) {
    this.opts = opts
    this.send = send
    this.bodies = new Map()
  }

  _body (botId) {
    const body = this.bodies.get(botId)
    if (!body) throw new Error(`no body "${botId}"`)
    return body
  }

  async spawnBot (botId, spec, timeoutMs) {
    if (this.bodies.has(botId)) throw new Error(`body "${botId}" already exists`)
    const log = (level, msg) => this.send({ type: 'log', level, msg })
    const emit = (kind, data) => this.send({ type: 'event', bot: botId, kind, at: Date.now() / 1000, data })
    const emitOutcome = (callId, outcome) => this.send({ type: 'outcome', bot: botId, call_id: callId, outcome })
    const body = new Body(spec, this.opts, emit, emitOutcome, log)
    this.bodies.set(botId, body)
    try {
      await body.start(timeoutMs)
    } catch (err) {
      this.bodies.delete(botId)
      throw err
    }
    return 'ok'
  }

  /** What the bodies of this process are doing, for the stall log: skills running, bodies at rest. */
  describeLoad () {
    let running = 0
    let resting = 0
    for (const body of this.bodies.values()) {
      if (body.runner.current) running++
      if (isResting(body.bot)) resting++
    }
    return `${running} running a skill, ${resting} at rest`
  }

  observe (botId) { return this._body(botId).observe() }

  /**
   * Snapshots of several bodies in one call: ``{id: snapshot's JSON text | {error}}``. The
   * text passes the host and the bridge as a string, and the Python side validates it into
   * its Observation in one pass (parsing it into dicts first and validating those cost it
   * about twice as much).
   */
  async observeMany (botIds) {
    const out = {}
    await Promise.all(botIds.map(async (id) => {
      try {
        out[id] = JSON.stringify(await this._body(id).observe())
      } catch (err) {
        out[id] = { error: String(err && err.message ? err.message : err) }
      }
    }))
    return out
  }

  runSkill (botId, callId, name, args, timeoutMs) {
    this._body(botId).runner.start(callId, name, args, timeoutMs)
    return 'started'
  }

  cancelSkill (botId, reason) {
    return this._body(botId).runner.cancel('cancelled', reason || 'cancelled by the controller')
  }

  startViewer (botId, opts) { return this._body(botId).startViewer(opts || {}) }

  stopViewer (botId) { this._body(botId).stopViewer(); return true }

  async quitBot (botId) {
    const body = this.bodies.get(botId)
    if (!body) return false
    this.bodies.delete(botId)
    await body.quit()
    return true
  }

  async quitAll () {
    const ids = [...this.bodies.keys()]
    await Promise.all(ids.map(id => this.quitBot(id)))
    return ids.length
  }
}

module.exports = { BodyGroup }
