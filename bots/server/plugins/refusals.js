'use strict'
// One count of everything the server refused a player: a creative-only packet in survival,
// a window click that disagreed with the server's copy, a container used out of reach, a
// move too quick, an impostor's login... Every check reports through
// serv.piano.refuse(player, kind, detail), so "none of our bodies was refused" is one
// number the admin API answers (GET /refusals): {total, byKind, byPlayer}.
// The first LOGGED refusals are logged as `[piano] refused <kind> <username>: <detail>`;
// after that only counted, so a flooding client cannot flood the log too.

const LOGGED = 50

function describe (detail) {
  if (detail === undefined || detail === null) return ''
  if (typeof detail === 'string') return detail
  try { return JSON.stringify(detail) } catch (e) { return String(detail) }
}

function createRefusals (log) {
  const counts = { total: 0, byKind: {}, byPlayer: {} }
  function refuse (player, kind, detail) {
    const name = (player && player.username) || '?'
    counts.total++
    counts.byKind[kind] = (counts.byKind[kind] || 0) + 1
    counts.byPlayer[name] = (counts.byPlayer[name] || 0) + 1
    if (counts.total <= LOGGED) log(`refused ${kind} ${name}: ${describe(detail).slice(0, 300)}`)
    if (counts.total === LOGGED) log(`(further refusals are only counted: GET /refusals)`)
  }
  function snapshot () {
    return { total: counts.total, byKind: { ...counts.byKind }, byPlayer: { ...counts.byPlayer } }
  }
  return { refuse, snapshot }
}

module.exports.server = function (serv) {
  const { refuse, snapshot } = createRefusals((msg) => console.log(`[piano] ${msg}`))
  serv.piano = serv.piano || {}
  serv.piano.refuse = refuse
  serv.piano.refusals = snapshot
  // the count as the server stops, for runs read after the fact (the village's server log)
  process.once('exit', () => console.log(`[piano] refusals at exit: ${JSON.stringify(snapshot())}`))
}

module.exports.createRefusals = createRefusals
