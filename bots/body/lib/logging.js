'use strict'
// Route console output and process warnings of a body process to a log sink.
//
// In the JSPyBridge process stderr is the bridge's message channel, so nothing
// may be written there; in workers stderr is not read. Either way logs go to
// ``sink(level, message)``, which forwards them to Python's logging.

const util = require('util')

function capture (sink) {
  const route = (level) => (...args) => {
    try { sink(level, util.format(...args).slice(0, 2000)) } catch (e) {}
  }
  console.log = route('info')
  console.info = route('info')
  console.warn = route('warning')
  console.error = route('error')
  console.debug = route('debug')
  console.trace = route('debug')
  process.emitWarning = (warning) => { route('warning')(String(warning && warning.message ? warning.message : warning)) }
  process.on('uncaughtException', (err) => route('error')(`uncaught exception: ${err && err.stack ? err.stack : err}`))
  process.on('unhandledRejection', (err) => route('error')(`unhandled rejection: ${err && err.stack ? err.stack : err}`))
}

module.exports = { capture }
