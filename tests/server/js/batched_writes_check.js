'use strict'
// The batched_writes plugin: a turn's packets to a player leave in a few system calls,
// all of them, in order. A minecraft-protocol server on a free loopback port, a client
// that logs in offline; once it plays, the server writes N chat packets to it in one
// turn. Counts the socket write requests the server's side made (each `_write` or
// `_writev` of the net.Socket is one system-level write) and what the client received,
// without the plugin and with it. Prints JSON.
const path = require('path')
const NM = process.env.PIANO_NODE_MODULES || path.resolve(__dirname, '../../../bots/node_modules')
const mc = require(path.join(NM, 'minecraft-protocol'))
const plugin = require(path.resolve(__dirname, '../../../bots/server/plugins/batched_writes.js'))

const N = Number(process.argv[2] || 500)
const VERSION = '1.16.5'

function scenario (withPlugin) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), 20000)
    const server = mc.createServer({ 'online-mode': false, port: 0, host: '127.0.0.1', version: VERSION, keepAlive: false })
    const serv = { _server: server }
    if (withPlugin) plugin.server(serv)
    server.on('listening', () => {
      const client = mc.createClient({ host: '127.0.0.1', port: server.socketServer.address().port, username: 'Probe', version: VERSION, auth: 'offline', keepAlive: false })
      const got = []
      client.on('chat', (p) => {
        got.push(JSON.parse(p.message).text)
        if (got.length === N) {
          const inOrder = got.every((t, i) => t === String(i))
          clearTimeout(timer)
          client.end()
          server.close()
          resolve({ writes, received: got.length, in_order: inOrder })
        }
      })
      client.on('error', reject)
    })
    let writes = 0
    server.on('playerJoin', (c) => {
      const s = c.socket
      const w = s._write.bind(s)
      const wv = s._writev.bind(s)
      s._write = (...a) => { writes++; return w(...a) }
      s._writev = (...a) => { writes++; return wv(...a) }
      for (let i = 0; i < N; i++) c.write('chat', { message: JSON.stringify({ text: String(i) }), position: 0, sender: '00000000-0000-0000-0000-000000000000' })
    })
    server.on('error', reject)
  })
}

async function main () {
  const without = await scenario(false)
  const withPlugin = await scenario(true)
  process.stdout.write(JSON.stringify({ n: N, without_plugin: without, with_plugin: withPlugin }) + '\n')
  process.exit(0)
}

main().catch((err) => { console.error(err); process.exit(1) })
