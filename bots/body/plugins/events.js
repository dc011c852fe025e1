'use strict'
// Forwards what happens to a bot as body events (kinds of agent_runtime.world.BodyEventKind).
const { vec } = require('../lib/util')
const { hears } = require('../lib/hearing')

const CHAT_LOG_MAX = 50

function inject (bot, body) {
  let lastHealth = null
  // The tab list the server sends while logging in (before the first spawn) is not "player joined".
  let spawned = false
  bot.once('spawn', () => { spawned = true })
  bot.on('chat', (username, message) => {
    if (username === bot.username) return
    // public chat reaches only bodies within the hearing radius of the speaker
    if (!hears(bot, username, body.opts.hearingRadius ?? null)) return
    body.hear(username, message, false)
    body.emit('chat', { sender: username, message })
  })
  bot.on('whisper', (username, message) => {
    if (username === bot.username) return
    body.hear(username, message, true)
    body.emit('whisper', { sender: username, message })
  })
  bot.on('death', () => {
    body.deaths += 1
    body.deadPending = true
    body.emit('death', { position: bot.entity ? vec(bot.entity.position) : null, deaths: body.deaths })
  })
  bot.on('health', () => {
    if (lastHealth !== null && bot.health < lastHealth && bot.health > 0) {
      body.emit('hurt', { health: bot.health, damage: Math.round((lastHealth - bot.health) * 100) / 100 })
    }
    lastHealth = bot.health
  })
  bot.on('playerJoined', (player) => {
    if (!spawned || player.username === bot.username) return
    body.emit('player_joined', { player: player.username })
  })
  bot.on('playerLeft', (player) => {
    if (player.username === bot.username) return
    body.emit('player_left', { player: player.username })
  })
  // the server's `collect` packet names the collector and how many it took
  bot._client.on('collect', (packet) => {
    if (!bot.entity || packet.collectorEntityId !== bot.entity.id) return
    const collected = bot.entities[packet.collectedEntityId]
    let item = null
    try { item = collected && collected.getDroppedItem && collected.getDroppedItem() } catch (e) {}
    const count = packet.pickupItemCount || (item ? item.count : null)
    body.emit('item_picked_up', { item: item ? item.name : null, count })
  })
}

module.exports = { inject, CHAT_LOG_MAX }
