'use strict'
// Commands: a working /give (flying-squid stored the count as a string, so
// 16 + 1 became "161" and the next pickup killed the connection) and
// /tell (aliases /msg, /w): a private message the receiver's mineflayer sees
// as a `whisper` ("<sender> whispers to you: <message>").

const { UserError } = require('flying-squid')

module.exports.server = function (serv) {
  const registry = serv.registry

  function skipPrefix (name) {
    return name.startsWith('minecraft:') ? name.slice(10) : name
  }

  function whisper (target, senderName, message) {
    const component = {
      translate: 'commands.message.display.incoming',
      with: [{ text: senderName }, { text: message }],
      color: 'gray',
      italic: true
    }
    target._client.write('chat', { message: JSON.stringify(component), position: 0, sender: '0' })
  }

  serv.once('pluginsReady', () => {
    const W = serv.piano.windows
    serv.commands.add({
      base: 'give',
      info: 'Give items to a player',
      usage: '/give <player> <item> [count]',
      tab: ['player', 'item', 'number'],
      op: true,
      parse (args, ctx) {
        const parts = args.trim().split(/\s+/)
        if (parts.length < 2 || parts[0] === '') return false
        const players = serv.getPlayers(parts[0], ctx.player)
        if (players.length < 1) throw new UserError(`Player not found: ${parts[0]}`)
        let count = 1
        if (parts[2] !== undefined) {
          if (!/^\d+$/.test(parts[2])) throw new UserError('Count must be a whole number')
          count = parseInt(parts[2], 10)
          if (count < 1 || count > 6400) throw new UserError('Count must be between 1 and 6400')
        }
        const name = skipPrefix(parts[1])
        const item = isNaN(+name) ? registry.itemsByName[name] : registry.items[+name]
        if (!item) throw new UserError(`Unknown item '${parts[1]}'`)
        return { players, item, count }
      },
      action ({ players, item, count }) {
        for (const player of players) {
          const left = W.addToInventory(player, new W.Item(item.id, count))
          if (left > 0) W.dropItem(player, new W.Item(item.id, left), { pickupDelay: 100 })
        }
        return `Gave ${count} [${item.name}] to ${players.map(p => p.username).join(', ')}`
      }
    })

    serv.commands.add({
      base: 'tell',
      aliases: ['msg', 'w'],
      info: 'Send a private message to a player',
      usage: '/tell <player> <message>',
      op: false,
      parse (args) {
        const m = /^(\S+)\s+(.+)$/.exec(args.trim())
        if (!m) return false
        return { target: m[1], message: m[2] }
      },
      action ({ target, message }, ctx) {
        const player = serv.getPlayer ? serv.getPlayer(target) : serv.players.find(p => p.username === target)
        if (!player) throw new UserError(`Player not found: ${target}`)
        const sender = ctx.player ? ctx.player.username : 'Server'
        whisper(player, sender, message)
        if (ctx.player) {
          const echo = { translate: 'commands.message.display.outgoing', with: [{ text: player.username }, { text: message }], color: 'gray', italic: true }
          ctx.player._client.write('chat', { message: JSON.stringify(echo), position: 0, sender: '0' })
        }
        serv.info?.(`[tell] ${sender} -> ${player.username}: ${message}`)
        return ctx.player ? undefined : `Told ${player.username}: ${message}`
      }
    })
  })

  serv.piano.whisper = whisper
}
