'use strict'
// How a body of this run proves at login that its name is its own (one place for both
// sides: the server's plugins/names.js asks, the body answers).
//
// The run holds one secret (a file of mode 0600 that only its servers and body hosts
// read; never in argv, environment or logs). At login the server sends a login plugin
// request on CHANNEL with a fresh random nonce; the body answers
// HMAC-SHA256(secret, CHANNEL \0 nonce \0 username). A vanilla client (a human) answers
// "not understood", as it does for any unknown channel: it logs in as a guest name.

const crypto = require('crypto')
const fs = require('fs')

const CHANNEL = 'piano:body'
const NONCE_BYTES = 32

function proof (secret, nonce, username) {
  const mac = crypto.createHmac('sha256', secret)
  mac.update(CHANNEL)
  mac.update('\0')
  mac.update(nonce)
  mac.update('\0')
  mac.update(username, 'utf8')
  return mac.digest()
}

function matches (secret, nonce, username, answer) {
  if (!Buffer.isBuffer(answer) || answer.length !== 32) return false
  return crypto.timingSafeEqual(proof(secret, nonce, username), answer)
}

/** The run's secret from its key file (trimmed text), or null when there is no file. */
function readSecret (file) {
  if (!file) return null
  const text = fs.readFileSync(file, 'utf8').trim()
  if (!text) throw new Error(`login key file ${file} is empty`)
  return text
}

/**
 * Make ``client`` (a minecraft-protocol client, before it connects) answer the server's
 * proof request with ``secret``; every other login plugin request is answered
 * "not understood" as before.
 */
function answerWith (client, secret, username) {
  client.removeAllListeners('login_plugin_request')
  client.on('login_plugin_request', (packet) => {
    if (packet.channel === CHANNEL && Buffer.isBuffer(packet.data) && packet.data.length === NONCE_BYTES) {
      client.write('login_plugin_response', { messageId: packet.messageId, data: proof(secret, packet.data, username) })
    } else {
      client.write('login_plugin_response', { messageId: packet.messageId })
    }
  })
}

module.exports = { CHANNEL, NONCE_BYTES, proof, matches, readSecret, answerWith }
