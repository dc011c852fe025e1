'use strict'
// A path is kept when a block changes beside it but none of its moves changed. mineflayer-pathfinder
// 2.4 throws its path away and searches again from scratch whenever a block of another type
// appears within a block or two of any node of the path still ahead (its blockUpdate listener,
// isPositionNearPath), in a crowded village mostly other bodies digging beside the way: a third
// of the bodies' A* searches (bots/body/BENCH.md). Here that listener runs only when the change
// could have changed a move of the path: when it is within reach of the body's own step (the
// move under way, as before), or when one of the remaining moves is no longer among the moves
// the search generates from its node (the same Movements, the world as it is now). A path whose
// every move is still one the search would make is the path the body was walking; a shorter
// one the change may have opened is not looked for (a player keeps the way it is on too).
const Move = require('mineflayer-pathfinder/lib/move')

// the cells a move from a to b reads lie within its two nodes' box grown by this much (the
// generators read the cells beside a diagonal step, heads two above a node, the floors below
// a drop, the neighbours of a block to break)
const SIDE = 2
const BELOW = 2
const ABOVE = 3

/** The integer cell of a path node (its hash: post-processing moves its x, y, z to where a body stands). */
function cellOf (node) {
  let c = node.pianoCell
  if (c === undefined) {
    const parts = String(node.hash).split(',')
    c = parts.length === 3 ? [Number(parts[0]), Number(parts[1]), Number(parts[2])] : [Math.floor(node.x), Math.floor(node.y), Math.floor(node.z)]
    node.pianoCell = c
  }
  return c
}

function inBox (p, a, b) {
  return p.x >= Math.min(a[0], b[0]) - SIDE && p.x <= Math.max(a[0], b[0]) + SIDE &&
    p.z >= Math.min(a[2], b[2]) - SIDE && p.z <= Math.max(a[2], b[2]) + SIDE &&
    p.y >= Math.min(a[1], b[1]) - BELOW && p.y <= Math.max(a[1], b[1]) + ABOVE
}

/** Whether the search still generates ``b`` from ``a`` as the same kind of move (nothing to dig or place). */
function stillMove (movements, a, b) {
  if (a.toBreak.length || a.toPlace.length || b.toBreak.length || b.toPlace.length) return false
  const [ax, ay, az] = cellOf(a)
  const hash = cellOf(b).join(',')
  for (const n of movements.getNeighbors(new Move(ax, ay, az, a.remainingBlocks, 0))) {
    if (n.hash === hash) return n.toBreak.length === 0 && n.toPlace.length === 0
  }
  return false
}

/**
 * Whether a block changed at ``pos`` (integer cell) leaves ``path`` (the nodes still ahead, as
 * the pathfinder holds them) as it is: not within reach of the step from where the body
 * stands (``here``) to the first node, and every later move still one ``movements`` makes.
 */
function keepsPath (movements, here, path, pos) {
  if (!path || path.length === 0) return false
  const body = [Math.floor(here.x), Math.floor(here.y), Math.floor(here.z)]
  if (inBox(pos, body, cellOf(path[0]))) return false
  for (let i = 0; i + 1 < path.length; i++) {
    const a = cellOf(path[i])
    const b = cellOf(path[i + 1])
    if (inBox(pos, a, b) && !stillMove(movements, path[i], path[i + 1])) return false
  }
  return true
}

/**
 * mineflayer-pathfinder's plugin with its blockUpdate listener behind keepsPath: the path the
 * pathfinder walks is known from its path_update events (it walks the very array it emits,
 * until a reset, a stop or a new goal). While a search still runs (a partial path), or when
 * the path is not one we know, the listener runs as before.
 */
function keepingPaths (pathfinderPlugin) {
  return function pathfinder (bot, options) {
    let last = null // the last path_update while it is the path walked
    bot.on('path_update', (r) => { last = r })
    for (const ev of ['path_reset', 'path_stop', 'goal_updated']) bot.on(ev, () => { last = null })
    bot.pianoPathsKept = 0
    const hadOwn = Object.prototype.hasOwnProperty.call(bot, 'on')
    const on = bot.on
    bot.on = function (event, listener) {
      if (event === 'blockUpdate') {
        const original = listener
        listener = (oldBlock, newBlock) => {
          if (oldBlock && newBlock && oldBlock.type !== newBlock.type && last && last.status === 'success' &&
              bot.pathfinder && bot.entity && keepsPath(bot.pathfinder.movements, bot.entity.position, last.path, oldBlock.position)) {
            if (nearPath(last.path, oldBlock.position)) {
              bot.pianoPathsKept++
              bot.emit('path_kept', oldBlock.position)
            }
            return
          }
          return original(oldBlock, newBlock)
        }
      }
      return on.call(this, event, listener)
    }
    try {
      pathfinderPlugin(bot, options)
    } finally {
      if (hadOwn) bot.on = on
      else delete bot.on
    }
  }
}

/** Whether the pathfinder would have called ``pos`` near ``path`` (and so thrown the path away). */
function nearPath (path, pos) {
  for (const node of path) {
    const c = cellOf(node)
    if (Math.abs(c[0] - pos.x) <= 1 && Math.abs(c[2] - pos.z) <= 1 && pos.y >= c[1] - 2 && pos.y <= c[1] + 1) return true
  }
  return false
}

module.exports = { keepingPaths, keepsPath, inBox, cellOf }
