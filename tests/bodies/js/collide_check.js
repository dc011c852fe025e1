'use strict'
// Each move that slipped our bodies into a block (the server's "moved wrongly" in the village,
// the experiments and the skills bench): the box at that position against that block, after
// bots/body/body.js is loaded. Prints {case: offset along the move}.
const path = require('path')
const BOTS = path.resolve(__dirname, '../../../bots')
const AABB = require(path.join(BOTS, 'node_modules/prismarine-physics/lib/aabb'))
if (JSON.parse(process.argv[2] || '""') === 'body') require(path.join(BOTS, 'body/body.js'))

function player (x, y, z) {
  return new AABB(-0.3, 0, -0.3, 0.3, 1.8, 0.3).offset(x, y, z)
}
const cases = {
  // at x -2.3 walking +x into a block at x -2 (its box edge is -1.9999999999999998)
  east: new AABB(-2, 68, 21, -1, 69, 22).computeOffsetX(player(-2.3, 68, 21.23), 0.02),
  // at x 2.3 walking -x into a block at x 1
  west: new AABB(1, 65, 40, 2, 66, 41).computeOffsetX(player(2.3, 65, 40.3), -0.02),
  // at z 32.3 jumping -z against a block at z 31
  north: new AABB(15, 65, 31, 16, 66, 32).computeOffsetZ(player(15.5, 65.42, 32.3), -0.03),
  // a block one step ahead still lets the move through
  free: new AABB(-1, 68, 21, 0, 69, 22).computeOffsetX(player(-2.3, 68, 21.23), 0.02)
}
process.stdout.write(JSON.stringify(cases) + '\n')
