'use strict'
// Process-wide speed-ups for hot library paths. Required once by group.js.
//
// prismarine-physics builds a PlayerState every physics tick of every bot and
// calls require('minecraft-data')(version) in its constructor; minecraft-data
// caches the data but re-parses the version string each call (~4% of a body
// process's CPU with 50 walking bots). Memoise the lookup; the result is the
// same cached object minecraft-data would return.

function memoiseMinecraftData () {
  const key = require.resolve('minecraft-data')
  const original = require('minecraft-data')
  if (original.pianoMemoised) return
  const memo = new Map()
  const wrapped = function (version, preNetty) {
    const k = `${version}|${preNetty ? 1 : 0}`
    let data = memo.get(k)
    if (data === undefined) {
      data = original(version, preNetty)
      if (data != null) memo.set(k, data)
    }
    return data
  }
  Object.assign(wrapped, original)
  wrapped.pianoMemoised = true
  require.cache[key].exports = wrapped
}

memoiseMinecraftData()

module.exports = { memoiseMinecraftData }
