'use strict'
// How late this body process's event loop ran, for the stall logs. A body process whose loop
// stops answers no keep-alive for any of its bodies; a server times them all out after 30 s.
// Every window (10 s) whose loop delay reached a second is logged with the longest delay
// and what ran in the process; `recentMaxMs()` is the longest delay of the last two windows,
// sent with a body's `disconnected` event so a kick can be told from a stall here.
const { monitorEventLoopDelay } = require('perf_hooks')

const WINDOW_MS = 10000
const LOG_FROM_MS = 1000

let state = null

/** Start watching (once per process); ``log(level, msg)`` gets the lines, ``describe()`` what ran. */
function watchLoop (log, describe) {
  if (state) return state
  const delay = monitorEventLoopDelay({ resolution: 20 })
  delay.enable()
  state = { previousMaxMs: 0, delay }
  const timer = setInterval(() => {
    const maxMs = delay.max / 1e6
    if (maxMs >= LOG_FROM_MS) {
      log('warning', `body process ${process.pid}: event loop delay max ${Math.round(maxMs)} ms, ` +
        `p99 ${Math.round(delay.percentile(99) / 1e6)} ms over ${WINDOW_MS / 1000} s; ${describe ? describe() : ''}`)
    }
    state.previousMaxMs = maxMs
    delay.reset()
  }, WINDOW_MS)
  timer.unref()
  return state
}

/** The longest loop delay of this window and the one before, in ms (0 when not watching). */
function recentMaxMs () {
  if (!state) return 0
  return Math.round(Math.max(state.previousMaxMs, state.delay.max / 1e6))
}

module.exports = { watchLoop, recentMaxMs }
