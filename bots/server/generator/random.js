'use strict'
// Deterministic hashing, a seeded PRNG and 2D value noise for the village
// generator. No Math.random anywhere in the generator: the same seed always
// gives the same world.

function mix32 (h) {
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d)
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b)
  return (h ^ (h >>> 16)) >>> 0
}

// hash of a seed and up to four integers, as a uint32
function hash (seed, a = 0, b = 0, c = 0, d = 0) {
  let h = mix32(seed ^ 0x9e3779b9)
  h = mix32(h ^ Math.imul(a | 0, 0x85ebca6b))
  h = mix32(h ^ Math.imul(b | 0, 0xc2b2ae35))
  h = mix32(h ^ Math.imul(c | 0, 0x27d4eb2f))
  h = mix32(h ^ Math.imul(d | 0, 0x165667b1))
  return h
}

// hash as a float in [0, 1)
function unit (seed, a, b, c, d) {
  return hash(seed, a, b, c, d) / 4294967296
}

// mulberry32: a small seeded PRNG for the one-off plan (cave path, ...)
function prng (seed) {
  let s = seed >>> 0
  return function next () {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function smooth (t) {
  return t * t * (3 - 2 * t)
}

// value noise in [0, 1) on a lattice of the given scale (blocks per cell)
function noise2 (seed, x, z, scale) {
  const fx = x / scale
  const fz = z / scale
  const x0 = Math.floor(fx)
  const z0 = Math.floor(fz)
  const tx = smooth(fx - x0)
  const tz = smooth(fz - z0)
  const a = unit(seed, x0, z0)
  const b = unit(seed, x0 + 1, z0)
  const c = unit(seed, x0, z0 + 1)
  const d = unit(seed, x0 + 1, z0 + 1)
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * tz
}

module.exports = { hash, unit, prng, noise2, smooth }
