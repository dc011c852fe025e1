'use strict'
// Chunk saving that loses no block change (prismarine-world's World.saveNow does).
//
// saveNow() starts a save of every column in `savingQueue`, awaits the writes, then
// clears the whole queue. A block changed while those writes run (a chest placed by a
// player) marks its column again, but the clear drops the mark: the column on disk
// keeps the state from before the change, and a shutdown's own saveNow() finds an empty
// queue and writes nothing. Seen as a chest that was placed and filled before a restart
// and gone after it (its contents, kept by world_state.js, still there):
// tests/server/test_containers.py, about 1 run in 3 under load.
//
// Here the queue entries are taken out BEFORE their columns are serialised (the Anvil
// provider serialises synchronously when save() is called), so a change made during the
// writes re-marks its column for the next save; and serv.piano.saveChunks() (called on
// shutdown) stops the periodic saving, waits for the writes in flight, then saves what
// is still marked, so two writes of one column never race.

module.exports.server = function (serv) {
  serv.once('pluginsReady', () => {
    const world = serv.overworld
    if (!world || typeof world.saveNow !== 'function') return
    world.saveNow = async function () {
      if (this.savingQueue.size === 0) return
      const batch = [...this.savingQueue.entries()]
      for (const [key] of batch) this.savingQueue.delete(key)
      for (const [key, { chunkX, chunkZ }] of batch) {
        if (!this.columns[key]) continue
        this.finishedSaving = Promise.all([this.finishedSaving, this.storageProvider.save(chunkX, chunkZ, this.columns[key])])
      }
      await this.finishedSaving
      for (const [key, { chunkX, chunkZ }] of this.unloadQueue.entries()) {
        if (!this.savingQueue.has(key)) this.forceUnloadColumn(key, chunkX, chunkZ)
      }
      this.emit('doneSaving')
    }
    serv.piano = serv.piano || {}
    serv.piano.saveChunks = async () => {
      world.stopSaving()
      await world.finishedSaving
      await world.saveNow()
    }
  })
}
