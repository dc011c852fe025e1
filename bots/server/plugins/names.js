'use strict'
// Names: an agent's name belongs to that agent's body, and one name is one player.
//
// Every login is checked before minecraft-protocol answers it (so before flying-squid
// makes a player, reads its saved position and inventory, or tells anybody):
// - the server asks each client to prove it is a body of this run (a login plugin
//   request with a fresh nonce, answered with an HMAC of it under the run's secret:
//   bots/body/lib/login_proof.js); a vanilla client answers "not understood";
// - a name that is not a valid Minecraft name (3-16 of [A-Za-z0-9_]) is refused, as
//   vanilla refuses it, so no look-alike of an agent's name gets in;
// - a client without the proof is refused under an agent's name in any letter case
//   (the names the run reserves in settings.agentNames, and every name a body ever
//   proved in this world, kept in piano_state.json), and under a name already online
//   in any letter case (vanilla would split nobody either);
// - a body with the proof is let in under its own name: an older connection under that
//   name is closed first (vanilla kicks the old connection of the same authenticated
//   player, "You logged in from another location"), its file saved before the new login
//   reads it.
// settings (host.js): bodyKeyFile (the run's secret, mode 0600; no file = nobody can
// prove, every name is a guest name), agentNames (names reserved for the run's bodies).

const { CHANNEL, NONCE_BYTES, matches, readSecret } = require('../../body/lib/login_proof')
const crypto = require('crypto')

const VALID_NAME = /^[A-Za-z0-9_]{3,16}$/
const ANSWER_MS = 30000 // a client that does not answer the proof request in time is refused: vanilla's login timeout, and the keep-alive's bound, so a body whose loop stalls under load is not refused at login sooner than it would be kicked while playing
const OLD_GONE_MS = 5000 // how long a body waits for the connection it replaces to close

module.exports.server = function (serv) {
  const settings = serv.piano.settings || {}
  const log = (msg) => console.log(`[piano] ${msg}`)
  const refuse = (name, kind, detail) => serv.piano.refuse?.({ username: name }, kind, detail)
  const secret = readSecret(settings.bodyKeyFile)
  const state = serv.piano.state
  state.bodyNames = state.bodyNames || {}
  const reserved = new Map() // lower case -> the name as the agent spells it
  for (const name of settings.agentNames || []) reserved.set(name.toLowerCase(), name)
  for (const [lower, name] of Object.entries(state.bodyNames)) reserved.set(lower, name)
  const online = new Map() // lower case -> { client, name, proven }: let in, not yet gone
  let nextMessageId = 1
  log(`names: ${reserved.size} agent names reserved; ${secret ? 'bodies prove theirs at login' : 'no body key: nobody can prove a name'}`)

  function askProof (client, name) {
    if (!secret) return Promise.resolve(false)
    const nonce = crypto.randomBytes(NONCE_BYTES)
    const messageId = nextMessageId++
    return new Promise((resolve) => {
      const done = (value) => {
        clearTimeout(timer)
        client.removeListener('login_plugin_response', onAnswer)
        client.removeListener('end', onEnd)
        resolve(value)
      }
      const onAnswer = (packet) => {
        if (packet.messageId !== messageId) return
        done(matches(secret, nonce, name, packet.data) ? true : false)
      }
      const onEnd = () => done(null)
      const timer = setTimeout(() => done(null), ANSWER_MS)
      client.on('login_plugin_response', onAnswer)
      client.once('end', onEnd)
      client.write('login_plugin_request', { messageId, channel: CHANNEL, data: nonce })
    })
  }

  function remember (name) {
    const lower = name.toLowerCase()
    if (state.bodyNames[lower] === name) return
    state.bodyNames[lower] = name
    reserved.set(lower, name)
    serv.piano.markDirty?.()
  }

  // close the connection a body's new login replaces, and wait until its file is saved
  async function replace (old) {
    if (!old.client.ended) {
      const gone = new Promise((resolve) => old.client.once('end', resolve))
      const player = serv.players.find(p => p._client === old.client)
      try {
        if (player) player.kick('You logged in from another location')
        else old.client.end('You logged in from another location')
      } catch (err) {}
      const cut = setTimeout(() => { try { old.client.socket?.destroy() } catch (err) {} }, 1000)
      await Promise.race([gone, new Promise(resolve => setTimeout(resolve, OLD_GONE_MS))])
      clearTimeout(cut)
    }
    await new Promise(resolve => setImmediate(resolve)) // logout.js saves in its 'end' handler
    const saves = [...(serv.piano.pendingSaves || [])]
    await Promise.race([Promise.all(saves), new Promise(resolve => setTimeout(resolve, OLD_GONE_MS))])
  }

  function claim (client, name, proven) {
    const lower = name.toLowerCase()
    const entry = { client, name, proven }
    online.set(lower, entry)
    client.once('end', () => { if (online.get(lower) === entry) online.delete(lower) })
  }

  // null: let in (the name is claimed); otherwise the reason the login is refused
  async function check (client, name) {
    if (typeof name !== 'string' || !VALID_NAME.test(name)) {
      refuse(String(name).slice(0, 32), 'invalid_name', 'not 3-16 of [A-Za-z0-9_]')
      return 'Invalid characters in username'
    }
    const lower = name.toLowerCase()
    const proven = await askProof(client, name)
    if (proven === null) return 'No answer to the login request'
    const old = online.get(lower)
    if (proven) {
      remember(name)
      claim(client, name, true)
      if (old && old.client !== client) await replace(old)
      return null
    }
    const agent = reserved.get(lower)
    if (agent !== undefined) {
      const sameCase = agent === name
      refuse(name, 'impostor', sameCase ? `an agent's name, without its body's proof` : `the agent name ${agent} in another letter case`)
      return sameCase
        ? `The name ${name} belongs to an agent of this village: join under another name`
        : `The name ${name} is the agent ${agent}'s name in another letter case: join under another name`
    }
    if (old) {
      refuse(name, 'duplicate_login', `${old.name} is online`)
      return `${old.name} is already playing on this server: join under another name`
    }
    claim(client, name, false)
    return null
  }

  serv._server.on('connection', (client) => {
    // minecraft-protocol's own login (server/login.js) runs once this check lets the client in
    const original = client.rawListeners('login_start')
    client.removeAllListeners('login_start')
    client.once('login_start', (packet) => {
      const name = packet && packet.username
      check(client, name).then((reason) => {
        if (client.ended) return
        if (reason !== null) {
          client.end(reason)
          return
        }
        for (const listener of original) listener.call(client, packet)
      }).catch((err) => {
        log(`names: login check of ${String(name).slice(0, 32)} failed: ${err && err.stack}`)
        client.end('Login failed')
      })
    })
  })

  serv.piano.names = { reserved: () => [...reserved.values()], online: () => [...online.values()].map(e => e.name) }
}
