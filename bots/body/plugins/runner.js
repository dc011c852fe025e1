'use strict'
// Skill runner: one skill at a time per body, with timeout, cancellation and a stuck detector.
const { SKILLS } = require('../skills')
const {
  SkillError, SkillAborted, inventoryCounts, inventoryDelta, vec, truncate
} = require('../lib/util')
const { stats, walkDetail } = require('../lib/move')

const TYPE_CHECKS = {
  number: v => typeof v === 'number' && Number.isFinite(v),
  int: v => Number.isInteger(v),
  string: v => typeof v === 'string'
}

/** Where the time of a skill went (``lib/move.js: stats`` since ``before``), in ms; the
 * outcome carries it as ``detail.timing`` when any of it is not zero. */
function timingSince (bot, before) {
  const now = stats(bot)
  const out = {}
  for (const k of Object.keys(now)) if (k !== 'searching_at') out[k] = Math.round(now[k] - (before[k] || 0))
  return out
}

/** Fill defaults and check names/types; returns [args, error]. */
function validateArgs (skill, given) {
  const args = {}
  for (const key of Object.keys(given || {})) {
    if (!(key in skill.args)) return [null, `bad arguments for ${skill.name}: unknown field "${key}"`]
  }
  for (const [key, spec] of Object.entries(skill.args)) {
    const v = given ? given[key] : undefined
    if (v === undefined || v === null) {
      if (!('default' in spec)) return [null, `bad arguments for ${skill.name}: "${key}" is required`]
      args[key] = spec.default
    } else if (!TYPE_CHECKS[spec.type](v)) {
      return [null, `bad arguments for ${skill.name}: "${key}" must be ${spec.type}`]
    } else {
      args[key] = v
    }
  }
  return [args, null]
}

/** Instant skills that run beside the current one instead of interrupting it. */
const SIDE_SKILLS = new Set(['chat', 'whisper'])

class SkillRunner {
  /**
   * @param body the Body (gives .bot, .connected, .random)
   * @param emitOutcome (callId, outcome) => void
   * @param opts {stuckMs}
   */
  constructor (body, emitOutcome, opts = {}) {
    this.body = body
    this.emitOutcome = emitOutcome
    this.stuckMs = opts.stuckMs || 20000
    this.current = null
  }

  /** Snapshot of the running skill for observations (SkillProgress) or null. */
  progress () {
    const run = this.current
    if (!run) return null
    return { skill: run.name, started_at: run.startedAt, progress: run.progress, detail: run.detail }
  }

  cancel (kind, message) {
    const run = this.current
    if (!run) return false
    run.abortKind = kind
    // a timeout or stuck walk says where it was going and how far it still was
    const walking = run.ctx && run.ctx.walking
    const bot = this.body.bot
    if (walking && bot && bot.entity && (kind === 'timeout' || kind === 'stuck')) {
      run.walk = { what: walking.what, detail: walkDetail(bot, walking.pos, kind === 'timeout' ? 'timed_out' : 'blocked') }
    }
    run.controller.abort(message)
    return true
  }

  start (callId, name, givenArgs, timeoutMs) {
    const startedAt = Date.now() / 1000
    const fail = (reason, failure) => this.emitOutcome(callId, {
      skill: name, success: false, reason: truncate(reason), failure, inventory_delta: {}, position: null,
      started_at: startedAt, ended_at: Date.now() / 1000, cancelled: false, timed_out: false, detail: {}
    })
    const skill = SKILLS[name]
    if (!skill) return fail(`unknown skill "${name}"`, 'bad_arguments')
    const [args, error] = validateArgs(skill, givenArgs)
    if (error) return fail(error, 'bad_arguments')
    const bot = this.body.bot
    if (!bot || !this.body.connected || !bot.entity) return fail('not connected to the server', 'not_connected')
    // talking must not interrupt what the body is doing: chat/whisper run beside the slot
    if (SIDE_SKILLS.has(name)) return this._runSide(callId, skill, args, startedAt)
    if (this.current) this.cancel('interrupted', `interrupted by ${name}`)
    const run = {
      callId,
      name,
      startedAt,
      progress: 0,
      detail: '',
      controller: new AbortController(),
      abortKind: null,
      ctx: null,
      walk: null,
      lastProgressAt: Date.now(),
      lastPos: bot.entity.position.clone(),
      invBefore: inventoryCounts(bot),
      statsBefore: { ...stats(bot) },
      invKey: ''
    }
    run.invKey = JSON.stringify(run.invBefore)
    this.current = run
    const signal = run.controller.signal
    const ctx = {
      bot,
      signal,
      random: this.body.random,
      check () { if (signal.aborted) throw new SkillAborted(String(signal.reason)) },
      progress (p, detail) {
        p = Math.max(0, Math.min(1, Number(p) || 0))
        if (p !== run.progress || (detail && detail !== run.detail)) run.lastProgressAt = Date.now()
        run.progress = p
        if (detail) run.detail = String(detail)
        if (process.env.PIANO_DEBUG_TRACE && detail) require('fs').appendFileSync(process.env.PIANO_DEBUG_TRACE, `${Date.now()} ${bot.username} ${bot.entity.position.x.toFixed(1)},${bot.entity.position.y.toFixed(1)},${bot.entity.position.z.toFixed(1)} ${detail}\n`)
      }
    }
    run.ctx = ctx
    const timeout = setTimeout(() => this.cancel('timeout', 'timed out'), Math.max(1, timeoutMs))
    const watch = skill.stationary ? null : setInterval(() => this._checkStuck(run), 1000)
    const aborted = new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(new SkillAborted(String(signal.reason))), { once: true })
    })
    aborted.catch(() => {})
    const work = Promise.resolve().then(() => skill.run(ctx, args))
    work.catch(() => {}) // the race below reports it; keep late rejections quiet
    Promise.race([work, aborted]).then(
      (result) => this._finish(run, null, result || {}),
      (err) => this._finish(run, err, {})
    ).finally(() => {
      clearTimeout(timeout)
      if (watch) clearInterval(watch)
    })
  }

  _runSide (callId, skill, args, startedAt) {
    const bot = this.body.bot
    const signal = new AbortController().signal
    const ctx = { bot, signal, random: this.body.random, check () {}, progress () {} }
    const report = (err, result) => this.emitOutcome(callId, {
      skill: skill.name,
      success: !err,
      reason: err ? truncate(err instanceof SkillError ? err.reason : String(err && err.message ? err.message : err)) : '',
      failure: err ? (err instanceof SkillError ? err.kind : 'other') : null,
      inventory_delta: {},
      position: bot && bot.entity ? vec(bot.entity.position) : null,
      started_at: startedAt,
      ended_at: Date.now() / 1000,
      cancelled: false,
      timed_out: false,
      detail: (result && result.detail) || {}
    })
    Promise.resolve().then(() => skill.run(ctx, args)).then((r) => report(null, r), (e) => report(e, null))
  }

  _checkStuck (run) {
    const bot = this.body.bot
    if (this.current !== run || !bot || !bot.entity) return
    const now = Date.now()
    const pos = bot.entity.position
    // a path search in progress (starved of CPU on a busy machine) is not "stuck"
    const searching = now - stats(bot).searching_at < 1500
    if (pos.distanceTo(run.lastPos) > 0.25 || bot.targetDigBlock || searching) {
      run.lastPos = pos.clone()
      run.lastProgressAt = now
    } else {
      const key = JSON.stringify(inventoryCounts(bot))
      if (key !== run.invKey) {
        run.invKey = key
        run.lastProgressAt = now
      }
    }
    if (now - run.lastProgressAt > this.stuckMs) {
      this.cancel('stuck', `stuck: no progress for ${Math.round(this.stuckMs / 1000)} s`)
    }
  }

  _cleanup (bot) {
    if (!bot) return
    try { if (bot.pathfinder) bot.pathfinder.stop() } catch (e) {}
    try { if (bot.pathfinder) bot.pathfinder.setGoal(null) } catch (e) {}
    try { if (bot.targetDigBlock) bot.stopDigging() } catch (e) {}
    try { bot.clearControlStates() } catch (e) {}
    try { if (bot.currentWindow) bot.closeWindow(bot.currentWindow) } catch (e) {}
  }

  _finish (run, err, result) {
    if (this.current === run) this.current = null
    const bot = this.body.bot
    const outcome = {
      skill: run.name,
      success: !err,
      reason: '',
      failure: null,
      inventory_delta: {},
      position: bot && bot.entity ? vec(bot.entity.position) : null,
      started_at: run.startedAt,
      ended_at: Date.now() / 1000,
      cancelled: false,
      timed_out: false,
      detail: result.detail || {}
    }
    const timing = bot ? timingSince(bot, run.statsBefore) : {}
    if (Object.values(timing).some(v => v > 0)) outcome.detail = { ...outcome.detail, timing }
    if (err) {
      const kind = run.abortKind
      if (kind) this._cleanup(bot)
      const where = run.detail ? ` (while ${run.detail})` : ''
      // e.g. "timed out walking to the chest at (3, 65, -21): 23 blocks left"
      const walked = run.walk ? ` walking to ${run.walk.what}: ${run.walk.detail.blocks_left} blocks left` : ''
      if (run.walk) outcome.detail = { ...outcome.detail, walk: run.walk.detail }
      if (kind === 'timeout') {
        outcome.timed_out = true
        outcome.failure = 'timed_out'
        outcome.reason = `timed out${walked || where}`
      } else if (kind === 'stuck') {
        outcome.reason = String(run.controller.signal.reason) + (walked || where)
        outcome.failure = 'stuck'
        outcome.detail = { ...outcome.detail, stuck: true }
      } else if (kind === 'disconnected') {
        outcome.reason = 'disconnected from the server'
        outcome.failure = 'disconnected'
      } else if (kind) {
        outcome.cancelled = true
        outcome.failure = 'cancelled'
        outcome.reason = `cancelled: ${run.controller.signal.reason}`
      } else if (err instanceof SkillError) {
        outcome.reason = err.reason
        outcome.failure = err.kind
        outcome.detail = { ...outcome.detail, ...err.detail }
      } else {
        outcome.failure = 'other'
        outcome.reason = `${run.name} failed: ${err && err.message ? err.message : String(err)}`
      }
      outcome.reason = truncate(outcome.reason)
    }
    try {
      if (bot && bot.inventory) outcome.inventory_delta = inventoryDelta(run.invBefore, inventoryCounts(bot))
    } catch (e) {}
    this.emitOutcome(run.callId, outcome)
  }
}

module.exports = { SkillRunner, validateArgs }
