'use strict'
// The hostile-client suite's harness: what a cheat (bots/hostile/cheats/<id>.js) is given as
// `t`. Clients are plain minecraft-protocol clients in offline mode sending raw packets, as a
// modified game client could; nothing of our bodies (bots/body) is used.
//
//   t.version, t.host, t.port, t.log(msg)
//   t.name(prefix)                      a fresh username (<= 16 characters) for this run
//   t.admin(method, path, body)         parsed JSON from the server's admin API
//   t.join(username, options)           a logged-in client that has its first position
//                                       ({ expectRefusal: true }: resolves with the kick or
//                                       disconnect reason instead)
//   t.next(client, packet, predicate, ms)  the next matching packet (rejects on timeout)
//   t.sync(client)                      resolves once the server has handled everything this
//                                       client sent before (a plugin-message round trip,
//                                       plugins/sync.js)
//   t.close(client)
//
// A joined client keeps what the server told it: `client.entityId`, `client.position` (the
// last position the server sent), `client.windows[id] = { stateId, slots }` (window_items /
// set_slot, slots as notch items), `client.cursor`, `client.openWindow` (the last
// open_window, null after close_window) and `client.kicked` (a reason, once it is dropped).

const fs = require('fs')
const mc = require('minecraft-protocol')

const SYNC_CHANNEL = 'piano:sync'
const JOIN_MS = 20000
const NEXT_MS = 5000

function createHarness ({ host, port, version, adminPort, adminToken, log }) {
  const clients = new Set()
  let syncs = 0
  let names = 0
  const tag = Date.now().toString(36).slice(-3)

  const t = {
    version,
    host,
    port,
    log: log || ((msg) => process.stderr.write(`[hostile] ${msg}\n`)),

    name (prefix) {
      names++
      return `${String(prefix).replace(/[^A-Za-z0-9_]/g, '').slice(0, 9)}_${tag}${names.toString(36)}`.slice(0, 16)
    },

    async admin (method, route, body) {
      if (!adminPort) throw new Error('no admin API')
      const res = await fetch(`http://127.0.0.1:${adminPort}${route}`, {
        method,
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
      const text = await res.text()
      let data
      try { data = JSON.parse(text) } catch (e) { data = { error: text } }
      if (!res.ok) {
        const err = new Error(`admin ${method} ${route}: ${res.status} ${data.error || text}`)
        err.status = res.status
        throw err
      }
      return data
    },

    join (username, options = {}) {
      const { expectRefusal = false, ...rest } = options
      const client = mc.createClient({ host, port, username, version, auth: 'offline', hideErrors: true, ...rest })
      clients.add(client)
      track(client)
      return new Promise((resolve, reject) => {
        let done = false
        const finish = (fn, value) => {
          if (done) return
          done = true
          clearTimeout(timer)
          fn(value)
        }
        const timer = setTimeout(() => finish(reject, new Error(`${username}: no login within ${JOIN_MS} ms`)), JOIN_MS)
        const dropped = (reason) => {
          if (expectRefusal) finish(resolve, reason)
          else finish(reject, new Error(`${username} was dropped while logging in: ${reason}`))
        }
        client.on('kick_disconnect', (p) => dropped(reasonText(p.reason)))
        client.on('disconnect', (p) => dropped(reasonText(p.reason)))
        client.on('end', (reason) => dropped(client.kicked || reason || 'connection ended'))
        client.on('error', (err) => dropped(String(err && err.message ? err.message : err)))
        // the login's last packet; flying-squid then waits for an on-ground packet and sends
        // the login position again
        client.once('update_health', async () => {
          try {
            const resent = t.next(client, 'position', null, JOIN_MS)
            client.write('flying', onGround())
            await resent
            if (expectRefusal) finish(resolve, null) // logged in after all: not refused
            else finish(resolve, client)
          } catch (err) {
            finish(reject, err)
          }
        })
      })
    },

    next (client, packetName, predicate, ms = NEXT_MS) {
      return new Promise((resolve, reject) => {
        const onPacket = (p) => {
          let ok = true
          try { ok = !predicate || predicate(p) } catch (err) { ok = false }
          if (!ok) return
          cleanup()
          resolve(p)
        }
        const onEnd = () => { cleanup(); reject(new Error(`${client.username} disconnected while waiting for ${packetName}: ${client.kicked || 'ended'}`)) }
        const timer = setTimeout(() => { cleanup(); reject(new Error(`${client.username}: no ${packetName} within ${ms} ms`)) }, ms)
        function cleanup () {
          clearTimeout(timer)
          client.removeListener(packetName, onPacket)
          client.removeListener('end', onEnd)
        }
        client.on(packetName, onPacket)
        client.once('end', onEnd)
      })
    },

    async sync (client, ms = NEXT_MS) {
      const data = Buffer.from(`sync ${++syncs}`)
      const answered = t.next(client, 'custom_payload', (p) => p.channel === SYNC_CHANNEL && Buffer.compare(p.data, data) === 0, ms)
      client.write('custom_payload', { channel: SYNC_CHANNEL, data })
      await answered
    },

    async close (client) {
      if (!client || !clients.has(client)) return
      clients.delete(client)
      if (client.ended) return
      const ended = new Promise(resolve => client.once('end', resolve))
      client.end('bye')
      await Promise.race([ended, new Promise(resolve => setTimeout(resolve, 2000))])
    },

    async closeAll () {
      await Promise.all([...clients].map(c => t.close(c)))
    }
  }
  return t
}

// what the server has told a client, kept on the client object
function track (client) {
  client.windows = {}
  client.cursor = null
  client.openWindow = null
  client.kicked = null
  client.ended = false
  const windowOf = (id) => (client.windows[id] = client.windows[id] || { stateId: 0, slots: [] })
  client.once('login', (p) => { client.entityId = p.entityId })
  client.on('position', (p) => {
    client.position = { x: p.x, y: p.y, z: p.z }
    client.write('teleport_confirm', { teleportId: p.teleportId })
  })
  client.on('window_items', (p) => {
    const w = windowOf(p.windowId)
    w.slots = p.items.slice()
    if (p.stateId !== undefined) w.stateId = p.stateId
    if (p.carriedItem !== undefined) client.cursor = p.carriedItem
  })
  client.on('set_slot', (p) => {
    if (p.windowId === -1 && p.slot === -1) { client.cursor = p.item; return }
    const w = windowOf(p.windowId)
    w.slots[p.slot] = p.item
    if (p.stateId !== undefined) w.stateId = p.stateId
  })
  client.on('set_cursor_item', (p) => { client.cursor = p.contents })
  client.on('open_window', (p) => { client.openWindow = p; delete client.windows[p.windowId] })
  client.on('close_window', () => { client.openWindow = null })
  client.on('kick_disconnect', (p) => { client.kicked = reasonText(p.reason) })
  client.on('disconnect', (p) => { client.kicked = reasonText(p.reason) })
  client.on('end', () => { client.ended = true })
  client.on('error', () => {}) // a dropped cheat's socket error is an outcome, not a crash
}

// a kick reason: JSON text, an NBT text component or plain text
function reasonText (reason) {
  if (reason === undefined || reason === null) return ''
  if (typeof reason === 'string') {
    try { return textOf(JSON.parse(reason)) } catch (e) { return reason }
  }
  return textOf(reason)
}

function textOf (c) {
  if (c === null || c === undefined) return ''
  if (typeof c === 'string') return c
  if (Array.isArray(c)) return c.map(textOf).join('')
  if (typeof c === 'object') {
    if (c.type && c.value !== undefined) return textOf(c.value) // NBT
    return [c.text, c.translate, ...(c.extra || []).map(textOf), ...(c.with || []).map(textOf)].filter(Boolean).map(textOf).join('')
  }
  return String(c)
}

// an on-ground packet in the shapes before and after 1.21.2
function onGround (value = true) {
  return { onGround: value, flags: { onGround: value, hasHorizontalCollision: false } }
}

// the harness of a check script run by the tests: its settings name the server, the admin API
// and the file holding the admin token (the token itself never travels in argv)
function harnessFromSettings (settings, log = () => {}) {
  return createHarness({
    host: settings.host || '127.0.0.1',
    port: settings.port,
    version: settings.version,
    adminPort: settings.adminPort,
    adminToken: fs.readFileSync(settings.adminTokenFile, 'utf8').trim(),
    log
  })
}

module.exports = { createHarness, harnessFromSettings, reasonText, onGround, SYNC_CHANNEL }
