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

// Written out per axis with plain property reads: the physics calls these for every block box
// near a moving body at every simulated tick (and the pathfinder's look-ahead simulates many),
// where property names built at each call cost more than the collision itself.
function computeOffsetX (other, offset) {
  if (other.maxY > this.minY && other.minY < this.maxY && other.maxZ > this.minZ && other.minZ < this.maxZ) {
    if (offset > 0.0 && other.maxX <= this.minX + EPSILON) {
      offset = Math.min(this.minX - other.maxX, offset)
    } else if (offset < 0.0 && other.minX >= this.maxX - EPSILON) {
      offset = Math.max(this.maxX - other.minX, offset)
    }
  }
  return offset
}

function computeOffsetY (other, offset) {
  if (other.maxX > this.minX && other.minX < this.maxX && other.maxZ > this.minZ && other.minZ < this.maxZ) {
    if (offset > 0.0 && other.maxY <= this.minY + EPSILON) {
      offset = Math.min(this.minY - other.maxY, offset)
    } else if (offset < 0.0 && other.minY >= this.maxY - EPSILON) {
      offset = Math.max(this.maxY - other.minY, offset)
    }
  }
  return offset
}

function computeOffsetZ (other, offset) {
  if (other.maxX > this.minX && other.minX < this.maxX && other.maxY > this.minY && other.minY < this.maxY) {
    if (offset > 0.0 && other.maxZ <= this.minZ + EPSILON) {
      offset = Math.min(this.minZ - other.maxZ, offset)
    } else if (offset < 0.0 && other.minZ >= this.maxZ - EPSILON) {
      offset = Math.max(this.maxZ - other.minZ, offset)
    }
  }
  return offset
}

function withTolerance () {
  if (AABB.prototype.pianoTolerance) return false
  AABB.prototype.computeOffsetX = computeOffsetX
  AABB.prototype.computeOffsetY = computeOffsetY
  AABB.prototype.computeOffsetZ = computeOffsetZ
  AABB.prototype.pianoTolerance = EPSILON
  return true
}

module.exports = { withTolerance, EPSILON }
