// Development-only stock flying-squid (superflat, 1.16.5); the real tests use bots/server_host.py.
'use strict'
const path = require('path')
const mcServer = require(path.join(__dirname, '../../bots/node_modules/flying-squid'))
const port = parseInt(process.argv[2] || '25590', 10)
const serv = mcServer.createMCServer({
  motd: 'dev', port, 'max-players': 200, 'online-mode': false, logging: false, gameMode: 0,
  difficulty: 1, worldFolder: undefined,
  generation: { name: 'superflat', options: { worldHeight: 80 } },
  kickTimeout: 10000, plugins: {}, modpe: false, 'view-distance': 4,
  'player-list-text': { header: { text: 'dev' }, footer: { text: 'dev' } },
  'everybody-op': true, 'max-entities': 100, version: '1.16.5'
})
// Work around BUGS_FROM_BODIES.md #1: send the joining player the tab list before entities spawn.
serv.on('newPlayer', (player) => {
  const updateAndSpawn = player.updateAndSpawn
  player.updateAndSpawn = (...args) => {
    const others = serv.players.filter(p => p !== player)
    if (others.length) {
      player._client.write('player_info', {
        action: 'add_player',
        data: others.map(p => ({ uuid: p.uuid, name: p.username, properties: p.profileProperties || [], gamemode: p.gameMode, ping: p._client.latency }))
      })
    }
    return updateAndSpawn(...args)
  }
})
serv.on('listening', () => { process.stdout.write('LISTENING ' + port + '\n') })
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
