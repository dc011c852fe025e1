'use strict'
// Floods and malformed packets cost the client that sent them its connection, never the
// server or the other players.
// - chat and commands: vanilla's chat-spam counter (each line +20, -1 a tick, more than
//   200 = kicked "Kicked for spamming": 10 lines at once, then one a second for ever);
//   a line over 256 characters or with a control character or the section sign is
//   refused as vanilla refuses it ("Illegal characters in chat");
// - a client sending more than PACKETS_PER_S packets or BYTES_PER_S bytes in one second
//   is cut off (vanilla's optional rate-limit; our bodies send ~20-60 a second);
// - a frame longer than vanilla's 2 MiB, a compressed packet claiming more than vanilla's
//   8 MiB or below the compression threshold, one that does not inflate to the size it
//   claims (minecraft-protocol inflated it on the event loop without a bound: a small
//   packet could stall the server for seconds), and a packet that does not parse, has an
//   unknown id or bytes left over (minecraft-protocol skipped or passed them on) are
//   refused as malformed.
// A client once cut off is heard no more: the rest of what it sent is dropped unread.

const zlib = require('zlib')
const [readVarInt] = require('protodef').types.varint

const SPAM_STEP = 20 // vanilla: chatSpamTickCount += 20 a line
const SPAM_LIMIT = 200 // vanilla: kicked above 200
const TICK_MS = 50
const CHAT_MAX = 256
const PACKETS_PER_S = 500
const BYTES_PER_S = 1 << 20
const MAX_FRAME = 1 << 21 // vanilla's frame decoder: a 3-byte length
const MAX_UNCOMPRESSED = 1 << 23 // vanilla: "Badly compressed packet - size ... is larger than protocol maximum"
const HEARD_WHEN_CUT = new Set(['end', 'error', 'close', 'state'])

// what each chat packet carries, by packet name: [text, is it a command]
const LINES = {
  chat: (p) => [p.message, String(p.message).startsWith('/')],
  chat_message: (p) => [p.message, false],
  chat_command: (p) => [p.command, true],
  chat_command_signed: (p) => [p.command, true]
}

// the length an unfinished frame announces (0 while its length is still incomplete)
function announced (buffer) {
  try { return readVarInt(buffer, 0).value } catch (err) { return 0 }
}

function allowedChat (text) {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 32 || c === 127 || c === 0xa7) return false
  }
  return true
}

module.exports.server = function (serv) {
  const refuse = (client, kind, detail) => serv.piano.refuse?.({ username: client.username || '(logging in)' }, kind, detail)
  const stats = { cut: 0, byKind: {} }

  function cut (client, kind, reason, detail) {
    if (client.pianoCut) return
    client.pianoCut = kind
    stats.cut++
    stats.byKind[kind] = (stats.byKind[kind] || 0) + 1
    refuse(client, kind, detail)
    try { client.socket?.pause() } catch (err) {} // nothing more is read from it
    try {
      const player = serv.players.find(p => p._client === client)
      if (player) player.kick(reason)
      else client.end(reason)
    } catch (err) {}
    setTimeout(() => { try { client.socket?.destroy() } catch (err) {} }, 1000).unref()
  }

  function guardFrames (client) {
    const split = client.splitter
    const transform = split._transform.bind(split)
    // a frame of no bytes, not even a packet id (vanilla fails to read the id and disconnects):
    // the streams would drop it unseen. (With compression on it holds the compressor's mark.)
    const push = split.push.bind(split)
    split.push = (frame) => {
      if (frame && frame.length === 0) {
        cut(client, 'malformed_packet', 'Malformed packet', 'an empty packet')
        return true
      }
      return push(frame)
    }
    let window = 0
    let bytes = 0
    split._transform = (chunk, enc, cb) => {
      if (client.pianoCut) return cb()
      const now = Date.now()
      if (now - window >= 1000) { window = now; bytes = 0 }
      bytes += chunk.length
      if (bytes > BYTES_PER_S) {
        cut(client, 'packet_flood', 'Too many packets', `more than ${BYTES_PER_S} bytes in a second`)
        return cb()
      }
      const done = (err) => {
        // what is left is one unfinished frame: longer than vanilla's longest, it is refused
        const length = split.buffer.length ? announced(split.buffer) : 0
        if (!err && (split.buffer.length > MAX_FRAME + 3 || length > MAX_FRAME || length < 0)) {
          split.buffer = Buffer.alloc(0)
          cut(client, 'malformed_packet', 'Packet too large', `a frame over ${MAX_FRAME} bytes`)
          return cb()
        }
        cb(err)
      }
      try {
        transform(chunk, enc, done)
      } catch (err) { // a length that is no varint at all
        split.buffer = Buffer.alloc(0)
        cut(client, 'malformed_packet', 'Malformed packet', `bad frame length: ${err && err.message}`)
        cb()
      }
    }
  }

  function guardInflate (client) {
    const d = client.decompressor
    if (!d || d.pianoGuarded) return
    d.pianoGuarded = true
    d._transform = function (chunk, enc, cb) {
      if (client.pianoCut) return cb()
      let head
      try { head = readVarInt(chunk, 0) } catch (err) { head = null }
      if (!head) {
        cut(client, 'malformed_packet', 'Badly compressed packet', 'no length')
        return cb()
      }
      if (head.value === 0) {
        if (chunk.length === head.size) { // a packet without even an id (streams would drop it unseen)
          cut(client, 'malformed_packet', 'Malformed packet', 'an empty packet')
          return cb()
        }
        this.push(chunk.subarray(head.size))
        return cb()
      }
      if (head.value < this.compressionThreshold || head.value > MAX_UNCOMPRESSED) {
        cut(client, 'malformed_packet', 'Badly compressed packet', `claims ${head.value} bytes`)
        return cb()
      }
      let out = null
      try { out = zlib.unzipSync(chunk.subarray(head.size), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: head.value }) } catch (err) {}
      if (!out || out.length !== head.value) {
        cut(client, 'malformed_packet', 'Badly compressed packet', `does not inflate to the ${head.value} bytes it claims`)
        return cb()
      }
      this.push(out)
      return cb()
    }
  }

  function guardPackets (client) {
    let window = 0
    let packets = 0
    let spam = 0
    let spamAt = Date.now()
    const emit = client.emit
    client.emit = function (event, ...args) {
      if (client.pianoCut && !HEARD_WHEN_CUT.has(event)) return false
      if (event === 'packet') {
        const now = Date.now()
        if (now - window >= 1000) { window = now; packets = 0 }
        if (++packets > PACKETS_PER_S) {
          cut(client, 'packet_flood', 'Too many packets', `more than ${PACKETS_PER_S} packets in a second`)
          return false
        }
        const meta = args[1]
        const line = meta && meta.state === 'play' && LINES[meta.name]
        if (line) {
          const [text, command] = line(args[0] || {})
          if (typeof text !== 'string' || text.length > CHAT_MAX || !allowedChat(text)) {
            cut(client, 'malformed_packet', 'Illegal characters in chat', `a chat line of ${String(text).length} characters or with a control character`)
            return false
          }
          spam = Math.max(0, spam - Math.floor((now - spamAt) / TICK_MS))
          spamAt = now - ((now - spamAt) % TICK_MS)
          spam += SPAM_STEP
          if (spam > SPAM_LIMIT) {
            cut(client, command ? 'command_spam' : 'chat_spam', 'Kicked for spamming', `${command ? 'commands' : 'chat lines'} faster than vanilla's spam counter allows`)
            return false
          }
        }
      }
      return emit.call(this, event, ...args)
    }
    // minecraft-protocol ends a client whose packet it cannot parse: counted here
    client.on('error', (err) => {
      if (client.pianoCut) return
      const text = String(err && err.message).slice(0, 200)
      if (/Parse error|PartialReadError|Chunk size|Deserialization error/i.test(text)) {
        cut(client, 'malformed_packet', 'Malformed packet', text)
      }
    })
  }

  // a packet that does not parse, has an id the protocol lacks, or has bytes left over
  // (vanilla: "Packet was larger than I expected"); minecraft-protocol skipped the first
  // silently and passed the others on. The parser is made again at each state change.
  function guardParser (client) {
    const parser = client.deserializer
    if (!parser || parser.pianoGuarded) return
    parser.pianoGuarded = true
    const parse = parser.parsePacketBuffer.bind(parser)
    parser.parsePacketBuffer = (buffer) => {
      let packet
      try {
        packet = parse(buffer)
      } catch (err) {
        cut(client, 'malformed_packet', 'Malformed packet', `does not parse: ${String(err && err.message).slice(0, 120)}`)
        throw err
      }
      const name = packet && packet.data && packet.data.name
      if (typeof name !== 'string' || packet.metadata.size !== buffer.length) {
        cut(client, 'malformed_packet', 'Malformed packet', typeof name !== 'string' ? 'an unknown packet id' : `${name}: ${buffer.length - packet.metadata.size} bytes left over`)
      }
      return packet
    }
  }

  serv._server.on('connection', (client) => {
    guardFrames(client)
    guardPackets(client)
    guardParser(client)
    client.on('state', () => guardParser(client))
  })
  serv._server.on('login', guardInflate)
  serv.piano.floods = () => ({ ...stats, byKind: { ...stats.byKind } })
}
