'use strict'
// A 3D view from one body's point of view, served on loopback on demand.
//
// prismarine-viewer's page (its prebuilt three.js client and textures) and its WorldView
// (which streams the bot's chunks and entities over socket.io) run inside the body's own
// Node process, where the bot's world lives. We run our own HTTP server around them so that
// it listens on 127.0.0.1 only (the library's helper listens on every interface), on a port
// the OS picks, and follows the body across reconnects (a new mineflayer bot object).
//
// The page draws with the textures and block states of one of the versions prismarine-viewer
// ships (lib/viewer_blocks.js: assetsVersion); a body at another version has its chunks and block
// changes translated into that version's block states on their way to the page.
const http = require('http')
const express = require('express')
const { Server } = require('socket.io')
const { setupRoutes } = require('prismarine-viewer/lib/common')
const { WorldView } = require('prismarine-viewer/viewer/lib/worldView')
const { assetsVersion, blockTranslator } = require('./viewer_blocks')

const DEFAULT_VIEW_DISTANCE = 4 // chunks; the page renders every block it is sent

class BodyViewer {
  /**
   * @param body the Body (its ``bot`` may be replaced on reconnect)
   * @param opts {viewDistance, firstPerson}
   */
  constructor (body, opts = {}) {
    assetsVersion(body.spec.version) // throws with the reason when the viewer cannot draw it
    this.body = body
    this.viewDistance = opts.viewDistance || DEFAULT_VIEW_DISTANCE
    this.firstPerson = opts.firstPerson !== false
    this.sockets = new Map() // socket -> detach()
    this.server = null
    this.port = null
    this.translators = new Map() // body's version -> blockTranslator
  }

  /** Listen on 127.0.0.1 (port chosen by the OS); resolves with the port. */
  start () {
    const app = express()
    setupRoutes(app, '')
    this.server = http.createServer(app)
    const io = new Server(this.server, { path: '/socket.io' })
    io.on('connection', (socket) => {
      this.sockets.set(socket, this._attach(socket, this.body.bot))
      socket.on('disconnect', () => {
        const detach = this.sockets.get(socket)
        this.sockets.delete(socket)
        if (detach) detach()
      })
    })
    this.io = io
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(0, '127.0.0.1', () => {
        this.port = this.server.address().port
        resolve(this.port)
      })
    })
  }

  /** Stream ``bot``'s world and position to one page; returns the function that stops it. */
  _attach (socket, bot) {
    if (!bot || !bot.entity) {
      socket.emit('version', assetsVersion(this.body.spec.version))
      return () => {}
    }
    const blocks = this._translator(bot)
    socket.emit('version', blocks.to)
    // the page's stream, the body's block states in the assets version's
    const page = {
      on: (event, fn) => socket.on(event, fn),
      emit: (event, data) => {
        if (event === 'loadChunk') data = { ...data, chunk: blocks.column(data.chunk) }
        else if (event === 'blockUpdate') data = { ...data, stateId: blocks.stateId(data.stateId) }
        return socket.emit(event, data)
      }
    }
    const view = new WorldView(bot.world, this.viewDistance, bot.entity.position, page)
    view.init(bot.entity.position)
    const onMove = () => {
      const packet = { pos: bot.entity.position, yaw: bot.entity.yaw, addMesh: true }
      if (this.firstPerson) packet.pitch = bot.entity.pitch
      socket.emit('position', packet)
      view.updatePosition(bot.entity.position)
    }
    bot.on('move', onMove)
    view.listenToBot(bot)
    return () => {
      bot.removeListener('move', onMove)
      view.removeListenersFromBot(bot)
    }
  }

  _translator (bot) {
    let t = this.translators.get(bot.version)
    if (!t) {
      t = blockTranslator(bot.registry, bot.version)
      this.translators.set(bot.version, t)
    }
    return t
  }

  /** The body has a new bot (reconnect): every open page follows it. */
  rebind (bot) {
    for (const [socket, detach] of this.sockets) {
      detach()
      this.sockets.set(socket, this._attach(socket, bot))
    }
  }

  close () {
    for (const [socket, detach] of this.sockets) { detach(); socket.disconnect(true) }
    this.sockets.clear()
    if (this.io) this.io.close()
    if (this.server) this.server.close()
    this.server = null
  }

  info () {
    return { port: this.port, pages: this.sockets.size }
  }
}

module.exports = { BodyViewer }
