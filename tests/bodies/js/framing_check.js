'use strict'
// The same byte stream, cut into the same random pieces, through minecraft-protocol's own
// Splitter and through bots/body/lib/framing.js: prints whether the frames match and how many
// Errors each built (its stack captured) while splitting.
const path = require('path')
const req = require('module').createRequire(path.resolve(__dirname, '../../../bots/package.json'))
const framing = req('minecraft-protocol/src/transforms/framing')
const { types: { varint } } = req('protodef')
const [seedArg] = process.argv.slice(2).map(a => JSON.parse(a))

let seed = seedArg || 1
const rand = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return (seed >>> 8) % n }

// frames of 1 to 40000 bytes (an empty one is not emitted by a stream) (1-, 2- and 3-byte lengths), framed as the Framer frames them
const frames = []
const parts = []
const whole = [] // each frame as one piece: a socket read ending on a frame's end
for (let i = 0; i < 400; i++) {
  const size = 1 + [rand(100), rand(2000), rand(40000)][rand(3)]
  const body = Buffer.alloc(size)
  for (let j = 0; j < size; j++) body[j] = rand(256)
  frames.push(body.toString('hex'))
  const head = Buffer.alloc(varint[2](size))
  varint[1](size, head, 0)
  parts.push(head, body)
  whole.push(Buffer.concat([head, body]))
}
const stream = Buffer.concat(parts)
const cuts = []
for (let at = 0; at < stream.length;) {
  const n = 1 + [rand(3), rand(300), rand(3000), rand(40000)][rand(4)]
  cuts.push(stream.subarray(at, at + n))
  at += n
}

let errors = 0
const capture = Error.captureStackTrace
Error.captureStackTrace = function (...args) { errors++; return capture.apply(this, args) }

async function split (splitter, cuts) {
  const out = []
  splitter.on('data', (b) => out.push(Buffer.from(b).toString('hex')))
  const ended = new Promise(resolve => splitter.on('end', resolve))
  errors = 0
  for (const piece of cuts) splitter.write(Buffer.from(piece))
  const built = errors
  splitter.end()
  await ended
  return { same: out.length === frames.length && out.every((h, i) => h === frames[i]), frames: out.length, errors: built }
}

async function main () {
  const stock = { cut: await split(framing.createSplitter(), cuts), whole: await split(framing.createSplitter(), whole) }
  require(path.resolve(__dirname, '../../../bots/body/lib/framing.js')).install()
  const ours = { cut: await split(framing.createSplitter(), cuts), whole: await split(framing.createSplitter(), whole) }
  process.stdout.write(JSON.stringify({ expected: frames.length, pieces: cuts.length, stock, ours }))
}

main()
