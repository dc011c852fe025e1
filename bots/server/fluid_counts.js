'use strict'
// A chunk section's fluid count (a field of the 26.1 wire format) kept without a Block built
// per block set.
//
// prismarine-chunk's section, at versions whose sections count their fluids, tells whether
// the old and the new state of every block set are fluids by building a prismarine-block
// Block for each (`Block.fromStateId`): generating one column of the village sets tens of
// thousands of blocks, and in a 50-agent village at 26.1 building those Blocks was about 7 %
// of the server's CPU samples. Here a state id's fluidness is found once (the same test: water
// or lava, or waterlogged) and kept, and the section's own `set` runs with its fluid counting
// turned off while this one counts: the same counts, the same blocks. Installed by
// server/host.js before flying-squid starts.
const { createRequire } = require('module')

const CHUNK = require.resolve('prismarine-chunk')
const fromChunk = createRequire(CHUNK)
const FLUIDS = new Set(['water', 'lava'])
const stats = { sectionsPatched: 0 }

function patchSection (Section, registry) {
  if (!Section || Section.prototype.pianoFluidCounts) return
  const Block = fromChunk('prismarine-block')(registry)
  const known = new Map() // state id -> fluid or not
  const fluid = (stateId) => {
    let is = known.get(stateId)
    if (is === undefined) {
      const block = Block.fromStateId(stateId)
      is = FLUIDS.has(block.name) || !!block.isWaterlogged
      known.set(stateId, is)
    }
    return is
  }
  const set = Section.prototype.set
  Section.prototype.set = function (pos, stateId) {
    if (!this.hasFluidCount) return set.call(this, pos, stateId)
    const was = fluid(this.get(pos))
    this.hasFluidCount = false
    try {
      set.call(this, pos, stateId)
    } finally {
      this.hasFluidCount = true
    }
    const is = fluid(stateId)
    if (was && !is) this.fluidCount -= 1
    else if (!was && is) this.fluidCount += 1
  }
  Section.prototype.pianoFluidCounts = true
  stats.sectionsPatched++
}

let installed = false

/** From now on, chunk columns' sections count their fluids from a kept table. */
function install () {
  if (installed) return false
  installed = true
  const loader = require(CHUNK)
  const wrapped = function (registryOrVersion) {
    const Chunk = loader(registryOrVersion)
    const registry = typeof registryOrVersion === 'string' ? fromChunk('prismarine-registry')(registryOrVersion) : registryOrVersion
    patchSection(Chunk.section, registry)
    return Chunk
  }
  Object.assign(wrapped, loader)
  require.cache[CHUNK].exports = wrapped
  return true
}

module.exports = { install, stats }
