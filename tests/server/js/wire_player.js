'use strict'
// One player's end of the wire on the server side, as minecraft-protocol builds it: its own
// serializer piped into its own compressor; `out` collects a short hash of each compressed
// frame, so two ways of sending can be compared byte for byte. The protocol's modules are
// required on the first call, after a check script has installed what it compares.
const path = require('path')
const crypto = require('crypto')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))

function player (version) {
  const { createSerializer } = req('minecraft-protocol/src/transforms/serializer')
  const compression = req('minecraft-protocol/src/transforms/compression')
  const serializer = createSerializer({ state: 'play', isServer: true, version })
  const compressor = compression.createCompressor(256)
  const out = []
  compressor.on('data', (b) => out.push(crypto.createHash('sha256').update(b).digest('hex').slice(0, 16)))
  serializer.pipe(compressor)
  return { serializer, out }
}

module.exports = { player }
