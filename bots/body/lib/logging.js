'use strict'
// Route console output and process warnings of a body process to a log sink.
//
// In the JSPyBridge process stderr is the bridge's message channel, so nothing
// may be written there; in workers stderr is not read. Either way logs go to
// ``sink(level, message)``, which forwards them to Python's logging.

const util = require('util')

// each console method and the level its lines are logged at
const CONSOLE_LEVELS = { log: 'info', info: 'info', warn: 'warning', error: 'error', debug: 'debug', trace: 'debug' }
// each process event that reports a failure and the words its line starts with
const FAILURE_EVENTS = { uncaughtException: 'uncaught exception', unhandledRejection: 'unhandled rejection' }

function capture (sink) {
  const route = (level) => (...args) => {
    try { sink(level, util.format(...args).slice(0, 2000)) } catch (e) {}
  }
  for (const [method, level] of Object.entries(CONSOLE_LEVELS)) console[method] = route(level)
  process.emitWarning = (warning) => { route('warning')(String(warning && warning.message ? warning.message : warning)) }
  for (const [event, words] of Object.entries(FAILURE_EVENTS)) {
    process.on(event, (err) => route('error')(`${words}: ${err && err.stack ? err.stack : err}`))
  }
}

module.exports = { capture }
