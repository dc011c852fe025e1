'use strict'
// Item entities: physics and pickup, in place of flying-squid's entity tick
// (flying-squid/src/lib/plugins/entities.js), which lost items:
//   - one error in any entity's step (or in a pickup) left its `ticking` flag set
//     for good: from then on no entity moved and nothing was picked up;
//   - a step moved by velocity * delta and only tested the block at the end of
//     the step, so on a lagging server (large delta) items fell through floors;
//     ticks with delta > 1 s were skipped;
//   - pickup was a 1.75-block sphere around the feet and went to the *first*
//     player of the server's list in range (often the thrower, who then took
//     back what it had just handed over).
// Here: per-entity errors are isolated; items move in <= 50 ms steps of at most
// 0.4 block per axis against solid blocks (vanilla-like gravity, drag and ground
// friction); pickup is vanilla's: the player's box grown by 1 block sideways and
// 0.5 up and down, tested every tick for every player; the nearest player with
// room wins.
//
// Hand-over: a stack thrown by a player while looking at another player within
// HAND_OVER_RANGE blocks (`serv.piano.items.markThrow`) is *for* that player: it
// is caught by them as soon as CATCH_DELAY_MS have passed, if they are still
// within CATCH_RANGE of the stack; the thrower can not take it back for
// THROWER_DELAY_MS. Vanilla servers have no such rule; the body's `give` skill
// tosses at point-blank range there and verifies the pickup.

const Vec3 = require('vec3').Vec3

const STEP_S = 0.05
const MAX_DT_S = 0.5 // a longer stall is simulated as this long
const GRAVITY = 16 // blocks/s^2 (vanilla 0.04 blocks/tick^2)
const AIR_DRAG = 0.98 // per tick
const GROUND_FRICTION = 0.6 * 0.98 // per tick, horizontal, on the ground
const HALF = 0.125 // half the item's box
const REACH_X = 0.3 + 1 + HALF // player half-width + vanilla's 1 block + item
const REACH_DOWN = 0.5 + 2 * HALF
const REACH_UP = 1.8 + 0.5
const HAND_OVER_RANGE = 5
const CATCH_RANGE = 5
const CATCH_DELAY_MS = 250
const THROWER_DELAY_MS = 5000

module.exports.server = function (serv) {
  const blocks = serv.registry.blocks
  let warned = 0
  const warn = (msg) => { if (warned++ < 20) console.log(`[piano] items: ${msg}`) }

  // take flying-squid's entity tick out: ours below does its work
  const theirs = serv.listeners('tick').filter(f => String(f).includes('calculatePhysics'))
  for (const f of theirs) serv.removeListener('tick', f)
  if (theirs.length !== 1) warn(`expected flying-squid's entity tick, found ${theirs.length}`)

  const isItem = (e) => e.type === 'object' && e.itemId !== undefined

  async function solid (world, x, y, z) {
    const t = await world.getBlockType(new Vec3(Math.floor(x), Math.floor(y), Math.floor(z)))
    return blocks[t]?.boundingBox === 'block'
  }

  // one item, `dt` seconds: returns whether it moved
  async function moveItem (e, dt) {
    const w = e.world
    const p = e.position.clone()
    const v = e.velocity
    // pushed out of a block that appeared on it (or that it was spawned in)
    if (await solid(w, p.x, p.y + 0.01, p.z)) {
      p.y = Math.floor(p.y + 0.01) + 1
      v.y = 0
    }
    let onGround = e.onGround === true
    if (onGround && v.x === 0 && v.z === 0 && v.y === 0 && await solid(w, p.x, p.y - 0.05, p.z)) {
      if (!p.equals(e.position)) await e.sendPosition(p, true)
      return false
    }
    for (let left = dt; left > 1e-6; left -= STEP_S) {
      const h = Math.min(STEP_S, left)
      const ticks = h / STEP_S
      v.y = Math.max(-27, v.y - GRAVITY * h)
      const moves = Math.max(1, Math.ceil(Math.max(Math.abs(v.x), Math.abs(v.y), Math.abs(v.z)) * h / 0.4))
      for (let i = 0; i < moves; i++) {
        const s = h / moves
        const ny = p.y + v.y * s
        if (v.y < 0 && await solid(w, p.x, ny, p.z)) {
          p.y = Math.floor(ny) + 1
          v.y = 0
          onGround = true
        } else if (v.y > 0 && await solid(w, p.x, ny + 2 * HALF, p.z)) {
          v.y = 0
        } else {
          p.y = ny
          if (v.y !== 0) onGround = false
        }
        for (const axis of ['x', 'z']) {
          if (v[axis] === 0) continue
          const n = p[axis] + v[axis] * s
          const edge = n + Math.sign(v[axis]) * HALF
          const probe = axis === 'x' ? [edge, p.y + 0.01, p.z] : [p.x, p.y + 0.01, edge]
          if (await solid(w, ...probe)) v[axis] = 0
          else p[axis] = n
        }
      }
      const drag = (onGround ? GROUND_FRICTION : AIR_DRAG) ** ticks
      v.x *= drag
      v.z *= drag
      v.y *= AIR_DRAG ** ticks
      if (Math.abs(v.x) < 0.05) v.x = 0
      if (Math.abs(v.z) < 0.05) v.z = 0
      if (onGround && Math.abs(v.y) < 0.05) v.y = 0
    }
    e.onGround = onGround
    if (p.equals(e.position)) return false
    await e.sendPosition(p, onGround)
    return true
  }

  function inReach (player, e) {
    const p = player.position
    const q = e.position
    return Math.abs(q.x - p.x) <= REACH_X && Math.abs(q.z - p.z) <= REACH_X &&
      q.y >= p.y - REACH_DOWN && q.y <= p.y + REACH_UP
  }

  const alive = (player) => player.world !== undefined && !(player.health <= 0) && player.gameMode !== 3 &&
    player._client && !player._client.ended

  // who may take `e` now, nearest first
  function takers (e, now) {
    const age = now - e.bornTime
    const out = []
    for (const player of serv.players) {
      if (player.world !== e.world || !alive(player)) continue
      if (e.pianoThrower === player && age < Math.max(e.pianoPickupDelay, e.pianoFor ? THROWER_DELAY_MS : 0)) continue
      const d = player.position.offset(0, 0.9, 0).distanceTo(e.position)
      if (e.pianoFor === player && age >= CATCH_DELAY_MS && d <= CATCH_RANGE) out.push([d - 100, player])
      else if (age >= e.pianoPickupDelay && inReach(player, e)) out.push([d, player])
    }
    return out.sort((a, b) => a[0] - b[0]).map(x => x[1])
  }

  function pickUp (e, now) {
    for (const player of takers(e, now)) {
      if (!player.collect) continue
      const before = e.itemCount
      try {
        player.collect(e)
      } catch (err) {
        warn(`pickup by ${player.username}: ${err && err.stack}`)
      }
      if (e.pianoCollected || e.itemCount !== before) return
    }
  }

  async function step (e, dt, now) {
    if (e.deathTime && now - e.bornTime >= e.deathTime) {
      e.destroy()
      return
    }
    if (isItem(e)) {
      if (e.pianoPickupDelay === undefined) {
        // flying-squid's own tick must not pick it up; we do
        e.pianoPickupDelay = e.pickupTime ?? 500
        e.pickupTime = undefined
      }
      await moveItem(e, dt)
      if (!e.pianoCollected) pickUp(e, now)
      return
    }
    // mobs and other objects: flying-squid's physics, with a bounded step
    if (!e.velocity || !e.size || !e.calculatePhysics) return
    const { position, onGround } = await e.calculatePhysics(Math.min(dt, 0.1))
    if (e.type === 'mob' || (e.type === 'object' && (e.velocity.x !== 0 || e.velocity.y !== 0 || e.velocity.z !== 0))) {
      await e.sendPosition(position, onGround)
    }
  }

  let running = false
  let last = Date.now()
  serv.on('tick', () => {
    if (running) return // the previous tick still runs: its successor simulates the time
    running = true
    const now = Date.now()
    const dt = Math.min(MAX_DT_S, Math.max(0, (now - last) / 1000))
    last = now
    const work = Object.values(serv.entities).filter(e => e.type !== 'player').map(e =>
      step(e, dt, now).catch(err => warn(`entity ${e.id} (${e.name}): ${err && err.stack}`)))
    Promise.all(work).finally(() => { running = false })
  })

  /**
   * Make `entity` (an item just spawned) a throw by `player`: from the eyes, in the
   * look direction, and for the player looked at within HAND_OVER_RANGE, if any.
   */
  function markThrow (entity, player, { pickupDelay = 2000, speed = 4 } = {}) {
    const { yaw, pitch } = lookOf(player)
    const dir = new Vec3(-Math.sin(yaw) * Math.cos(pitch), -Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch))
    const eye = player.position.offset(0, 1.62, 0)
    entity.velocity = dir.scaled(speed).offset(0, 1.5, 0)
    entity.pianoThrower = player
    entity.pianoPickupDelay = pickupDelay
    entity.pickupTime = undefined
    let best = null
    for (const other of serv.players) {
      if (other === player || other.world !== player.world || !alive(other)) continue
      const to = other.position.offset(0, 0.9, 0).minus(eye)
      const along = to.dot(dir)
      if (along <= 0 || to.norm() > HAND_OVER_RANGE) continue
      const off = to.minus(dir.scaled(along)).norm() // distance of their body from the line of sight
      if (off <= 1.2 && (!best || along < best[0])) best = [along, other]
    }
    entity.pianoFor = best ? best[1] : null
    return entity.pianoFor
  }

  serv.piano.items = { markThrow, inReach }
}

// The look a player's client sent last, in radians. flying-squid sets `player.yaw`/`pitch`
// (byte angles) only after two awaited events, so a drop or a click read right after a look
// (a client that looks at someone, then tosses: the `give` skill) was thrown where the player
// had looked before: the skills bench's stack flew 2 blocks past a receiver at the giver's feet.
function lookOf (player) {
  if (player.pianoLook) return player.pianoLook
  return { yaw: (player.yaw || 0) * 2 * Math.PI / 256, pitch: (player.pitch || 0) * 2 * Math.PI / 256 }
}

module.exports.player = function (player, serv) {
  for (const name of ['look', 'position_look']) {
    player._client.on(name, ({ yaw, pitch } = {}) => {
      if (Number.isFinite(yaw) && Number.isFinite(pitch)) {
        player.pianoLook = { yaw: yaw * Math.PI / 180, pitch: pitch * Math.PI / 180 }
      }
    })
  }
  // flying-squid's drop key (Q, block_dig status 3/4) spawns the stack at the feet with
  // no velocity and a 500 ms pickup delay (the dropper took it back): make it a throw
  player._client.on('block_dig', ({ status }) => {
    if (status !== 3 && status !== 4) return
    const mine = Object.values(serv.entities).filter(e => e.type === 'object' && e.itemId !== undefined &&
      e.pianoPickupDelay === undefined && e.position.equals(player.position) && Date.now() - e.bornTime < 1000)
    for (const e of mine) {
      e.position = player.position.offset(0, 1.3, 0)
      serv.piano.items.markThrow(e, player)
    }
  })
}
