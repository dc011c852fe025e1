'use strict'
// Why a body's pathfinder searches: with ``PIANO_DEBUG_REPLANS=/some/file`` every body appends
// one line per A* search it finishes to that file (name, why it started, status, ms, nodes,
// and how many ticks it ran partial), so the searches of a village can be counted by cause:
// a new goal, a path reset (a block changed near the path, a chunk loaded beside the searched
// area, the goal moved, stuck) or a search that ended without reaching the goal.
const fs = require('fs')

function watch (bot, file = process.env.PIANO_DEBUG_REPLANS) {
  if (!file) return false
  let why = 'goal_updated'
  let context = null
  let slices = 0
  bot.on('goal_updated', () => { why = 'goal_updated' })
  bot.on('path_reset', (reason) => { why = reason })
  bot.on('path_kept', () => { // a block changed beside the path, none of its moves (lib/path_keep.js)
    try { fs.appendFileSync(file, `${Date.now()} ${bot.username} block_updated kept 0 0 0\n`) } catch (e) {}
  })
  bot.on('path_update', (r) => {
    if (r.context !== context) { context = r.context; slices = 0 }
    slices++
    if (r.status === 'partial') return
    const line = `${Date.now()} ${bot.username} ${why} ${r.status} ${Math.round(r.time)} ${r.visitedNodes} ${slices}\n`
    try { fs.appendFileSync(file, line) } catch (e) {}
    why = 'after_' + r.status // a search started with no reset since: the path ran out
  })
  return true
}

module.exports = { watch }
