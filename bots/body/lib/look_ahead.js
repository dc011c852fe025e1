'use strict'
// The pathfinder's look-ahead, bounded as its jump checks are. At every physics tick of a
// walk, mineflayer-pathfinder 2.4 decides between sprinting, jumping and walking by
// simulating the body towards the next node of its path (lib/physics.js): canStraightLine
// simulates up to 200 ticks (10 s) until the body stands on the node, and only then tries
// the jumps, 20 ticks each. Path nodes are neighbours (1-4 blocks apart): walking, a body
// reaches one in under 20 ticks, and a straight line that has not reached it after 60 ticks
// (3 s, 13 blocks of walking) ran into something; the simulation went on for the rest of
// the 200 ticks, at every tick, for each body pressed against a step or a wall, where much
// of a body process's CPU went in a crowded village. Here it stops
// after LOOK_AHEAD_TICKS; everything else is the pathfinder's own code. It only chooses the
// controls the body presses: what the server is sent is the body's walk as before.
const Physics = require('mineflayer-pathfinder/lib/physics')

const LOOK_AHEAD_TICKS = 60

function canStraightLine (path, sprint = false) {
  const reached = this.getReached(path)
  const state = this.simulateUntil(reached, this.getController(path[0], false, sprint), LOOK_AHEAD_TICKS)
  if (reached(state)) return true

  if (sprint) {
    if (this.canSprintJump(path, 0)) return false
  } else {
    if (this.canWalkJump(path, 0)) return false
  }

  for (let i = 1; i < 7; i++) {
    if (sprint) {
      if (this.canSprintJump(path, i)) return true
    } else {
      if (this.canWalkJump(path, i)) return true
    }
  }
  return false
}

let installed = false

function install () {
  if (installed) return false
  installed = true
  Physics.prototype.canStraightLine = canStraightLine
  return true
}

module.exports = { install, LOOK_AHEAD_TICKS }
