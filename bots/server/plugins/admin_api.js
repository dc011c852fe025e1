'use strict'
// Admin HTTP API (JSON), bound to loopback only; see bots/server/README.md.
// For experiments and metrics: players never reach it.

const crypto = require('crypto')
const fs = require('fs')
const http = require('http')

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])

module.exports.server = function (serv, settings) {
  const piano = settings.piano || {}
  if (piano.adminPort === null || piano.adminPort === undefined || piano.adminPort === false) return
  const host = piano.adminHost || '127.0.0.1'
  if (!LOOPBACK.has(host)) throw new Error(`admin API must bind to loopback, not ${host}`)
  // every request carries `Authorization: Bearer <token>`; the token is read from a file
  // (mode 0600, in the run folder) so that it never appears in a process list
  if (!piano.adminTokenFile) throw new Error('admin API needs adminTokenFile')
  const token = Buffer.from(fs.readFileSync(piano.adminTokenFile, 'utf8').trim(), 'utf8')
  if (token.length < 16) throw new Error('admin API token is too short')
  // `Bearer <token>`, or HTTP Basic with the token as password (a URL's user info)
  function authorised (req) {
    const header = String(req.headers.authorization || '')
    let given = null
    if (header.startsWith('Bearer ')) given = header.slice(7).trim()
    else if (header.startsWith('Basic ')) {
      const pair = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
      given = pair.slice(pair.indexOf(':') + 1)
    }
    if (given === null) return false
    const g = Buffer.from(given, 'utf8')
    return g.length === token.length && crypto.timingSafeEqual(g, token)
  }
  const registry = serv.registry

  const itemJson = (it, slot) => ({ slot, name: registry.items[it.type]?.name, count: it.count })
  function playerByName (name) {
    return serv.players.find(p => p.username === name) ||
      serv.players.find(p => p.username.toLowerCase() === String(name).toLowerCase()) || null
  }
  function position (p) {
    return { x: p.position.x, y: p.position.y, z: p.position.z, yaw: p.yaw, pitch: p.pitch, onGround: !!p.onGround }
  }
  function inventory (p) {
    const items = []
    p.inventory.slots.forEach((it, slot) => { if (it && slot > 4) items.push(itemJson(it, slot)) })
    return { username: p.username, items, cursor: p.cursor ? itemJson(p.cursor, -1) : null, heldSlot: 36 + (p.heldItemSlot || 0), returning: Boolean(p.pianoReturning) }
  }
  function playerJson (p) {
    return { username: p.username, uuid: p.uuid, position: position(p), health: p.health, food: p.food, gameMode: p.gameMode }
  }
  async function container (x, y, z) {
    const block = await serv.overworld.getBlock(new (require('vec3').Vec3)(x, y, z))
    const kinds = { chest: 27, furnace: 3, trapped_chest: 27 }
    const C = serv.piano.containers
    const stored = C.find(x, y, z)
    if (!kinds[block.name] && !stored) return null
    const c = stored || { items: () => [], data: {} }
    const out = { x, y, z, block: block.name, type: stored ? stored.type : block.name, items: c.items() }
    if (block.name === 'furnace') out.furnace = { burn: c.data.burn || 0, burnMax: c.data.burnMax || 0, cook: c.data.cook || 0 }
    return out
  }

  function readBody (req) {
    return new Promise((resolve, reject) => {
      let size = 0
      const chunks = []
      req.on('data', (c) => {
        size += c.length
        if (size > 65536) { reject(new Error('body too large')); req.destroy() } else chunks.push(c)
      })
      req.on('end', () => {
        if (!chunks.length) return resolve({})
        try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) } catch (e) { reject(new Error('body is not JSON')) }
      })
      req.on('error', reject)
    })
  }

  class HttpError extends Error {
    constructor (status, message) { super(message); this.status = status }
  }

  async function route (method, parts, body, query) {
    const [a, b, c, d] = parts
    if (method === 'GET' && a === 'health') return { ok: true, players: serv.players.length, tick: serv.tickCount, time: serv.time }
    if (method === 'GET' && a === 'places') return serv.piano.plan()
    if (method === 'GET' && a === 'refusals') return serv.piano.refusals()
    if (a === 'players' && method === 'POST' && c === 'teleport') {
      const p = playerByName(decodeURIComponent(b))
      if (!p) throw new HttpError(404, `no player ${b}`)
      const [x, y, z] = [body.x, body.y, body.z].map(Number)
      if ([x, y, z].some(v => !Number.isFinite(v))) throw new HttpError(400, 'body: {"x": .., "y": .., "z": ..}')
      p.teleport(new (require('vec3').Vec3)(x, y, z))
      return { ok: true, username: p.username, x, y, z }
    }
    if (a === 'players') {
      if (method !== 'GET') throw new HttpError(405, 'method not allowed')
      if (!b) return { players: serv.players.map(playerJson) }
      const p = playerByName(decodeURIComponent(b))
      if (!p) throw new HttpError(404, `no player ${b}`)
      if (!c) return { ...playerJson(p), inventory: inventory(p).items }
      if (c === 'inventory') return inventory(p)
      if (c === 'position') return { username: p.username, ...position(p) }
      throw new HttpError(404, 'not found')
    }
    if (a === 'entities') {
      if (method !== 'GET') throw new HttpError(405, 'method not allowed')
      const near = query.get('near') ? query.get('near').split(',').map(Number) : null
      const radius = Number(query.get('radius') || 16)
      const list = []
      for (const e of Object.values(serv.entities)) {
        if (e.type === 'player') continue
        const p = e.position
        if (near && Math.hypot(p.x - near[0], p.y - near[1], p.z - near[2]) > radius) continue
        const out = { id: e.id, type: e.type, name: e.name, x: p.x, y: p.y, z: p.z }
        if (e.itemId !== undefined) out.item = { name: registry.items[e.itemId]?.name, count: e.itemCount || 1 }
        else if (typeof e.health === 'number') out.health = e.health
        list.push(out)
      }
      return { entities: list }
    }
    if (a === 'blocks') {
      if (method !== 'GET') throw new HttpError(405, 'method not allowed')
      const [x, y, z] = [b, c, d].map(v => parseInt(v, 10))
      if ([x, y, z].some(Number.isNaN)) throw new HttpError(400, 'use /blocks/<x>/<y>/<z>')
      const block = await serv.overworld.getBlock(new (require('vec3').Vec3)(x, y, z))
      return { x, y, z, name: block.name, stateId: block.stateId }
    }
    if (a === 'containers' || a === 'chests') {
      if (method !== 'GET') throw new HttpError(405, 'method not allowed')
      if (!b) {
        const all = Object.entries(serv.piano.state.containers).map(([key, v]) => ({ key, type: v.type }))
        return { community: serv.piano.plan().chests, stored: all }
      }
      const [x, y, z] = [b, c, d].map(v => parseInt(v, 10))
      if ([x, y, z].some(Number.isNaN)) throw new HttpError(400, 'use /containers/<x>/<y>/<z>')
      const out = await container(x, y, z)
      if (!out) throw new HttpError(404, `no container at ${x},${y},${z}`)
      return out
    }
    if (method === 'POST' && a === 'command') {
      let cmd = String(body.command || '').trim()
      if (!cmd) throw new HttpError(400, 'body: {"command": "..."}')
      if (cmd.startsWith('/')) cmd = cmd.slice(1)
      try {
        const output = await serv.commands.use(cmd, {}, true)
        return { ok: true, output: output ?? null }
      } catch (err) {
        throw new HttpError(400, (err && err.message) || String(err))
      }
    }
    if (method === 'POST' && a === 'world' && b === 'restore') {
      const [x, z, radius] = [body.x, body.z, body.radius].map(Number)
      try {
        return { ok: true, changed: await serv.piano.restore({ x, z, radius }) }
      } catch (err) {
        if (err instanceof RangeError) throw new HttpError(400, `${err.message}; body: {"x": .., "z": .., "radius": ..}`)
        throw err
      }
    }
    if (method === 'POST' && a === 'broadcast') {
      const message = String(body.message || '')
      if (!message) throw new HttpError(400, 'body: {"message": "..."}')
      serv.broadcast(message)
      return { ok: true }
    }
    if (a === 'time') {
      if (method === 'GET') return { time: serv.time }
      if (method !== 'POST') throw new HttpError(405, 'method not allowed')
      const named = { day: 1000, noon: 6000, night: 13000, midnight: 18000, sunrise: 23000 }
      const t = typeof body.time === 'string' && named[body.time] !== undefined ? named[body.time] : Number(body.time)
      if (!Number.isFinite(t) || t < 0) throw new HttpError(400, 'body: {"time": <ticks> | "day" | "noon" | "night" | "midnight"}')
      serv.setTime(Math.floor(t) % 24000)
      return { ok: true, time: serv.time }
    }
    throw new HttpError(404, 'not found')
  }

  const server = http.createServer(async (req, res) => {
    const send = (status, obj) => {
      serv.piano.flushWrites?.() // what the call changed reaches the players before its answer
      const text = JSON.stringify(obj)
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      res.end(text)
    }
    if (!authorised(req)) return send(401, { ok: false, error: 'missing or wrong admin token' })
    try {
      const url = new URL(req.url, 'http://localhost')
      const parts = url.pathname.split('/').filter(Boolean)
      const body = req.method === 'POST' ? await readBody(req) : {}
      send(200, await route(req.method, parts, body, url.searchParams))
    } catch (err) {
      send(err.status || 500, { ok: false, error: err.message || String(err) })
    }
  })
  server.keepAliveTimeout = 5000

  const ready = new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(piano.adminPort || 0, host, () => {
      serv.pianoAdmin = { port: server.address().port, close: () => server.close() }
      serv.info?.(`admin API on http://${host}:${serv.pianoAdmin.port}`)
      resolve()
    })
  })
  serv.piano.onWorldReady(() => ready)
}
