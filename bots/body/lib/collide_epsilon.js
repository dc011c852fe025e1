'use strict'
// prismarine-physics stops a moving box at a block only when the box is exactly outside the
// block's face (`other.maxX <= this.minX`). A box clamped against a face, or put back there by
// the server, is often past it by a floating-point error (x = -2.3: the box's edge is
// -2.3 + 0.3 = -1.9999999999999998, beyond the face at -2): the block then no longer stops it,
// the body walks 0.02-0.09 of a block into it, and the server's movement check puts it back
// as "moved wrongly", again at every step. A vanilla client collides with a tolerance of
// 1e-7 (its Shapes.collide); the bodies' physics gets the same tolerance here.
const AABB = require('prismarine-physics/lib/aabb')

const EPSILON = 1e-7

function withTolerance () {
  if (AABB.prototype.pianoTolerance) return false
  const axes = [['X', 'Y', 'Z'], ['Y', 'X', 'Z'], ['Z', 'X', 'Y']]
  for (const [a, b, c] of axes) {
    const lo = 'min' + a
    const hi = 'max' + a
    AABB.prototype['computeOffset' + a] = function (other, offset) {
      if (other['max' + b] > this['min' + b] && other['min' + b] < this['max' + b] &&
          other['max' + c] > this['min' + c] && other['min' + c] < this['max' + c]) {
        if (offset > 0.0 && other[hi] <= this[lo] + EPSILON) {
          offset = Math.min(this[lo] - other[hi], offset)
        } else if (offset < 0.0 && other[lo] >= this[hi] - EPSILON) {
          offset = Math.max(this[hi] - other[lo], offset)
        }
      }
      return offset
    }
  }
  AABB.prototype.pianoTolerance = EPSILON
  return true
}

module.exports = { withTolerance, EPSILON }
