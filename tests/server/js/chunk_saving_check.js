'use strict'
// A block changed while a chunk save is being written must reach the disk (the race of
// prismarine-world's saveNow, fixed by bots/server/plugins/chunk_saving.js). A storage
// provider that records what it was given and takes 50 ms per write; a change made while
// the periodic save writes, then the shutdown's save. Prints what the provider holds last
// for the column, with and without the plugin.
const path = require('path')
const { EventEmitter } = require('events')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const { Vec3 } = require(path.join(NM, 'vec3'))
const World = require(path.join(NM, 'prismarine-world'))('1.16.5')
const Chunk = require(path.join(NM, 'prismarine-chunk'))('1.16.5')
const registry = require(path.join(NM, 'prismarine-registry'))('1.16.5')
const plugin = require(path.resolve(__dirname, '../../../bots/server/plugins/chunk_saving.js'))

const CHEST = registry.blocksByName.chest.defaultState
const STONE = registry.blocksByName.stone.defaultState
const P = new Vec3(3, 65, 4)

async function scenario (withPlugin) {
  const disk = {}
  const provider = {
    async load () { return null },
    async save (x, z, column) {
      const state = column.getBlockStateId(P) // serialised now, as the Anvil provider does
      await new Promise(resolve => setTimeout(resolve, 50))
      disk[`${x},${z}`] = state
    }
  }
  const world = new World(null, provider, 0) // no periodic timer: the saves are called here
  await world.setColumn(0, 0, new Chunk())
  const serv = new EventEmitter()
  serv.overworld = world
  if (withPlugin) { plugin.server(serv); serv.emit('pluginsReady') }
  await world.setBlockStateId(P, STONE)
  const periodic = world.saveNow() // the periodic save starts writing the column (stone)
  await new Promise(resolve => setTimeout(resolve, 10))
  await world.setBlockStateId(P, CHEST) // a chest placed while it writes
  await periodic
  if (serv.piano && serv.piano.saveChunks) await serv.piano.saveChunks()
  else { await world.finishedSaving; await world.saveNow() } // the shutdown's save
  return disk['0,0'] === CHEST ? 'chest' : disk['0,0'] === STONE ? 'stone' : String(disk['0,0'])
}

async function main () {
  const out = { without_plugin: await scenario(false), with_plugin: await scenario(true) }
  process.stdout.write(JSON.stringify(out) + '\n')
}
main().catch(err => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
