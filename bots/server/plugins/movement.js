'use strict'
// Movement as a vanilla server checks it. flying-squid applied every position a client sent:
// a modified client could jump 30 blocks in one packet, run at any speed, fly, and walk
// through walls, and every other player was told so. Here each move is checked, when its
// packet arrives, against the last place the server accepted, and a refused move is not
// applied: the player is sent back where it was (a position packet, which teleport_confirm
// then waits to see confirmed, as after any teleport) and the refusal is counted
// (serv.piano.refuse, "moved too quickly" / "moved wrongly" in the log).
//
// - moved too quickly: a move more than 10 blocks from the last accepted place (vanilla's
//   per-packet bound), or, over time, faster than a horizontal budget: it refills at RATE
//   blocks a second up to BURST blocks, and a move spends its horizontal length. A client
//   whose loop stalled catches up at up to 4 physics ticks per turn (mineflayer) and a loaded
//   server reads several packets in one turn: the budget is over time, not per packet.
// - moved wrongly: a move that ends in, or passes through, a block's collision shape that the
//   player's box did not touch before (vanilla's "colliding with anything new"); a move longer
//   than FOLLOW is followed along the way, and refused only when every path it could have
//   taken is blocked: the vertical leg first or last (stepping up, falling off an edge), the
//   horizontal leg straight or axis by axis in either order (vanilla collides a move axis by
//   axis: Y, then the larger of X and Z, then the other; mineflayer's physics Y, X, Z
//   whatever their sizes). A move past a block's corner whose straight line clips the corner
//   is one a client could have made; a move through a block is blocked on every path.
// - flying: rising more than RISE blocks with nothing around the player (vanilla's "no blocks
//   around": every block within 1/16 of its box and 0.55 below is air); floating there (not
//   falling) for more than FLOAT_TICKS of the client's own packets is kicked as vanilla kicks:
//   "Flying is not enabled on this server".
// A knockback the server sends (entity_velocity of the player itself) widens the bounds for
// a moment. Creative and spectator players are checked for speed only, as in vanilla.

const TOO_FAR_SQ = 100 // vanilla: (10 blocks)^2 per packet
const RATE = 10 // blocks/s; sprint-jumping is ~7.1
const BURST = 24 // blocks; a client stall of ~4 s caught up at mineflayer's 4 ticks per turn
const RISE = 1.5 // blocks risen with nothing around; a jump rises 1.25, ~0.85 of it unsupported
const FLOAT_TICKS = 80 // vanilla: 80 ticks floating, then the kick
const STEP = 0.25 // blocks between the points a long move is followed through
// the paths a long move is followed along, each a list of legs (the axes one leg moves):
// vertical first or last, the horizontal straight or axis by axis (X then Z, Z then X)
const PATHS = [['y', 'xz'], ['xz', 'y'], ['y', 'x', 'z'], ['y', 'z', 'x'], ['x', 'z', 'y'], ['z', 'x', 'y']]
const FOLLOW = 0.5 // moves longer than this are followed along the way
const HALF_WIDTH = 0.3
const HEIGHT = 1.8
const DEFLATE = 0.01 // the box touching a block's face is not inside it
const KNOCKBACK_MS = 1500 // how long a knockback widens the bounds
const DUG_MS = 2000 // a block the player finished digging is passable while the server breaks it
const LOGGED_PER_PLAYER = 3 // log lines of one player's refusals beyond serv.piano.refuse's own

module.exports.server = function (serv) {
  serv.piano = serv.piano || {}
  const Block = require('prismarine-block')(serv.registry)
  const shapes = new Map() // state id -> collision boxes [x0, y0, z0, x1, y1, z1] in the block
  const air = new Set()
  for (const name of ['air', 'cave_air', 'void_air']) {
    const b = serv.registry.blocksByName[name]
    if (!b) continue
    for (let s = b.minStateId ?? b.id; s <= (b.maxStateId ?? b.id); s++) air.add(s)
  }
  function shapesOf (state) {
    let s = shapes.get(state)
    if (s === undefined) {
      try { s = Block.fromStateId(state, 0).shapes || [] } catch (e) { s = [] }
      shapes.set(state, s)
    }
    return s
  }
  serv.piano.movementWorld = { shapesOf, air }
}

module.exports.player = function (player, serv) {
  const { shapesOf, air } = serv.piano.movementWorld
  const Vec3 = require('vec3').Vec3
  const cell = { x: 0, y: 0, z: 0 }
  let good = null // the last place accepted (or set by the server)
  let budget = BURST
  let refilled = Date.now()
  let rise = 0
  let floating = false
  let floatTicks = 0
  let knockback = 0
  let knockbackUntil = 0
  let logged = 0
  let puttingBack = false
  const dug = new Map() // "x,y,z" -> until

  // null: the column is not loaded (nothing is known there)
  function stateAt (x, y, z) {
    const column = player.world?.getLoadedColumn?.(x >> 4, z >> 4)
    if (!column) return null
    cell.x = x & 15
    cell.y = y
    cell.z = z & 15
    try { return column.getBlockStateId(cell) } catch (e) { return null }
  }

  function box (p) {
    return [p.x - HALF_WIDTH + DEFLATE, p.y + DEFLATE, p.z - HALF_WIDTH + DEFLATE,
      p.x + HALF_WIDTH - DEFLATE, p.y + HEIGHT - DEFLATE, p.z + HALF_WIDTH - DEFLATE]
  }
  function overlaps (a, x, y, z, s) {
    return a[0] < x + s[3] && a[3] > x + s[0] && a[1] < y + s[4] && a[4] > y + s[1] && a[2] < z + s[5] && a[5] > z + s[2]
  }

  // a block shape that `b` is in and `old` was not: where, or null
  function newCollision (b, old) {
    const now = Date.now()
    for (let x = Math.floor(b[0]); x <= Math.floor(b[3]); x++) {
      for (let z = Math.floor(b[2]); z <= Math.floor(b[5]); z++) {
        for (let y = Math.floor(b[1]) - 1; y <= Math.floor(b[4]); y++) { // -1: fences and walls are 1.5 high
          const state = stateAt(x, y, z)
          if (state === null || air.has(state)) continue
          const list = shapesOf(state)
          for (const s of list) {
            if (!overlaps(b, x, y, z, s) || overlaps(old, x, y, z, s)) continue
            const key = `${x},${y},${z}`
            if ((dug.get(key) || 0) > now) continue
            return key
          }
        }
      }
    }
    return null
  }

  // the move from `from` to `to`, followed along the way when long: null when one of PATHS is
  // free of blocks the box newly enters, else the first block the first path enters
  function blocked (from, to) {
    const old = box(from)
    const last = newCollision(box(to), old)
    if (last) return last
    if (from.distanceTo(to) <= FOLLOW) return null
    let first = null
    for (const path of PATHS) {
      const hit = follow(from, to, path, old)
      if (!hit) return null
      first = first || hit
    }
    return first
  }
  // along `path` (legs of axes moved together) from `from` to `to`: the first block entered
  function follow (from, to, path, old) {
    let a = from
    for (const axes of path) {
      const b = new Vec3(a.x, a.y, a.z)
      for (const axis of axes) b[axis] = to[axis]
      const hit = leg(a, b, old)
      if (hit) return hit
      a = b
    }
    return null
  }
  function leg (a, b, old) {
    const n = Math.ceil(a.distanceTo(b) / STEP)
    for (let i = 1; i <= n; i++) {
      const t = i / n
      const hit = newCollision(box(new Vec3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t)), old)
      if (hit) return hit
    }
    return null
  }

  // vanilla's "blocks around": anything but air within 1/16 of the box or 0.55 below it
  // (an unloaded column counts as something: nothing is known there)
  function supported (p) {
    const x0 = Math.floor(p.x - HALF_WIDTH - 0.0625)
    const x1 = Math.floor(p.x + HALF_WIDTH + 0.0625)
    const z0 = Math.floor(p.z - HALF_WIDTH - 0.0625)
    const z1 = Math.floor(p.z + HALF_WIDTH + 0.0625)
    const y0 = Math.floor(p.y - 0.55 - 0.0625)
    const y1 = Math.floor(p.y + HEIGHT + 0.0625)
    for (let y = y0; y <= y1; y++) { // from below: the ground is usually the first block read
      for (let x = x0; x <= x1; x++) {
        for (let z = z0; z <= z1; z++) {
          const state = stateAt(x, y, z)
          if (state === null || !air.has(state)) return true
        }
      }
    }
    return false
  }

  function placed (p) {
    good = new Vec3(p.x, p.y, p.z)
    rise = 0
    floating = false
    floatTicks = 0
  }

  // every position the server sends (login, teleport, respawn, a put-back) is the new start
  const write = player._client.write.bind(player._client)
  player._client.write = (name, params) => {
    if (name === 'position' && params && !(params.flags & 0x7)) {
      if (puttingBack) good = new Vec3(params.x, params.y, params.z) // a float goes on counting
      else placed(params)
    }
    else if (name === 'entity_velocity' && params && params.entityId === player.id) {
      const v = params.velocity || { x: params.velocityX, y: params.velocityY, z: params.velocityZ }
      const perTick = Math.hypot(v.x || 0, v.y || 0, v.z || 0) / 8000
      knockback = Math.max(knockback, perTick * 12) // ~ the distance a push carries (air drag 0.91/tick)
      knockbackUntil = Date.now() + KNOCKBACK_MS
    }
    return write(name, params)
  }

  player._client.on('block_dig', (packet) => {
    if (packet && packet.status === 2 && packet.location) {
      const { x, y, z } = packet.location
      dug.set(`${x},${y},${z}`, Date.now() + DUG_MS)
      if (dug.size > 16) for (const [k, until] of dug) if (until < Date.now()) dug.delete(k)
    }
  })

  // the client's own ticks: each movement packet is one; a float lasting FLOAT_TICKS is kicked
  for (const name of ['position', 'position_look', 'look', 'flying']) {
    player._client.on(name, () => {
      if (!floating || ++floatTicks <= FLOAT_TICKS) return
      floating = false
      refuse('flying', `floated ${floatTicks} ticks at ${fmt(good)}: kicked`)
      player.kick('Flying is not enabled on this server')
    })
  }

  function fmt (p) {
    return p ? `${p.x.toFixed(2)},${p.y.toFixed(2)},${p.z.toFixed(2)}` : '?'
  }
  function refuse (kind, detail) {
    if (serv.piano.refuse) serv.piano.refuse(player, kind, detail)
    else if (logged++ < LOGGED_PER_PLAYER) console.log(`[piano] refused ${kind} ${player.username}: ${detail}`)
  }

  // back where it was: the look is kept (relative yaw and pitch, 0 change)
  function putBack () {
    puttingBack = true
    try {
      player._client.write('position', { x: good.x, y: good.y, z: good.z, yaw: 0, pitch: 0, flags: 0x18, teleportId: 1 })
    } finally {
      puttingBack = false
    }
  }

  // A client that walks into a block believes it is not there (a dig it finished that the
  // server did not apply, a block change it missed): it is sent the block as the server has
  // it, at most once a second per block, so its world and path planning converge on ours
  // instead of being put back at every step.
  const resent = new Map() // "x,y,z" -> when
  function resend (key) {
    const now = Date.now()
    if ((resent.get(key) || 0) > now - 1000) return
    resent.set(key, now)
    if (resent.size > 16) for (const [k, at] of resent) if (at < now - 1000) resent.delete(k)
    const [x, y, z] = key.split(',').map(Number)
    const state = stateAt(x, y, z)
    if (state !== null) player._client.write('block_change', { location: { x, y, z }, type: state })
  }

  // 'move_cancel' listeners run when the packet is handled, in packet order (teleport_confirm
  // marks the moves it drops as stale before this runs)
  player.on('move_cancel', (data, cancel) => {
    if (data.teleport || data.stale) return
    const to = data.position
    if (!good) {
      placed(to)
      return
    }
    const now = Date.now()
    budget = Math.min(BURST, budget + (now - refilled) / 1000 * RATE)
    refilled = now
    const push = now < knockbackUntil ? knockback : (knockback = 0)
    const dx = to.x - good.x
    const dy = to.y - good.y
    const dz = to.z - good.z
    const across = Math.hypot(dx, dz)
    let kind = null
    let why = null
    let blockedAt = null
    if (![to.x, to.y, to.z].every(Number.isFinite)) {
      kind = 'moved_wrongly'
      why = 'not a position'
    } else if (dx * dx + dy * dy + dz * dz - push * push > TOO_FAR_SQ) {
      kind = 'moved_too_quickly'
      why = `moved too quickly! ${dx.toFixed(2)},${dy.toFixed(2)},${dz.toFixed(2)} in one move`
    } else if (across > budget + push) {
      kind = 'moved_too_quickly'
      why = `moved too quickly! ${across.toFixed(2)} blocks across with ${budget.toFixed(2)} of budget left`
    } else if (player.gameMode !== 1 && player.gameMode !== 3) {
      const hit = blocked(good, to)
      const around = supported(to)
      if (hit) {
        kind = 'moved_wrongly'
        why = `moved wrongly! into the block at ${hit}`
        blockedAt = hit
      } else if (!around && dy > 0 && rise + dy > RISE + push) {
        kind = 'flying'
        why = `rose ${(rise + dy).toFixed(2)} blocks with nothing around`
      } else {
        rise = around ? 0 : rise + Math.max(0, dy)
        floating = !around && dy >= -0.03125
        if (!floating) floatTicks = 0
      }
    }
    if (kind) {
      cancel(false)
      refuse(kind, `${why} (from ${fmt(good)} to ${fmt(to)})`)
      putBack()
      if (blockedAt) resend(blockedAt)
      return
    }
    budget -= across
    good = new Vec3(to.x, to.y, to.z)
  })
}
