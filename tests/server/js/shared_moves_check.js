'use strict'
// Moves written to three players (each its own serializer and compressor, as a player's
// client has), with the tracker's packet objects shared among them (bots/server/shared_packets.js,
// "shared") or with a packet object each as before ("stock"): prints the hashes of what each
// player's compressor puts out and, when shared, how many packets were serialized and kept.
const path = require('path')
const [version, mode] = process.argv.slice(2).map(a => JSON.parse(a))
const shared = require(path.resolve(__dirname, '../../../bots/server/shared_packets.js'))
if (mode === 'shared') shared.install()
const { player: wirePlayer } = require(path.resolve(__dirname, 'wire_player.js'))

const player = () => wirePlayer(version)
const players = [player(), player(), player()]
// an entity's updates as the tracker makes them: a step with a look, a step, a look, a head turn;
// the third player was told an older position, so its step differs
const updates = [
  ['entity_move_look', { entityId: 42, dX: 512, dY: 0, dZ: -96, yaw: 12, pitch: -3, onGround: true }, { entityId: 42, dX: 1024, dY: 0, dZ: -96, yaw: 12, pitch: -3, onGround: true }],
  ['rel_entity_move', { entityId: 42, dX: 7, dY: -4096, dZ: 0, onGround: false }],
  ['entity_look', { entityId: 42, yaw: 100, pitch: 5, onGround: false }],
  ['entity_head_rotation', { entityId: 42, headYaw: 100 }]
]
for (const [name, params, third] of updates) {
  const one = shared.share({ ...params })
  players.forEach((p, i) => {
    const fields = i === 2 && third ? third : params
    p.serializer.write({ name, params: mode === 'shared' ? (fields === params ? one : shared.share({ ...fields })) : { ...fields } })
  })
}
setImmediate(() => {
  process.stdout.write(JSON.stringify({ out: players.map(p => p.out), stats: shared.stats }))
})
