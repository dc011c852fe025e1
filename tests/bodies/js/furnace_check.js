'use strict'
// The smelt skill's wait at an open furnace (bots/body/lib/furnace.js: takeSmelted) against a
// made-up furnace window, one scenario per run; prints what the wait ended with as one JSON
// line. A wait still going after `limitMs` is cut off ("aborted": what the runner's stuck
// timer did to a body that waited for items it would never see).
//   race: one item seen in the output, the click takes two (the second landed in between)
//   shared: another player took the output before this body looked; nothing more cooks
//   fuel: the furnace runs out with input left; the body holds more fuel
//   plain: two items, one at a time
//   refused: the server refuses the first click on the output (it grew meanwhile, before 1.17)
const path = require('path')
const { takeSmelted, POLL_MS } = require(path.resolve(__dirname, '../../../bots/body/lib/furnace'))
const { SkillAborted } = require(path.resolve(__dirname, '../../../bots/body/lib/util'))
const [scenario, limitMs] = process.argv.slice(2).map(a => JSON.parse(a))

const ORE = 1
const INGOT = 2
const COAL = 3
const item = (type, count) => ({ type, count })

function furnaceWindow () {
  const f = { slots: new Array(39).fill(null), inventoryStart: 3, inventoryEnd: 39, selectedItem: null, progress: 0, fuel: 0.5, takes: 0, fuelPut: 0 }
  f.inputItem = () => f.slots[0]
  f.fuelItem = () => f.slots[1]
  f.outputItem = () => f.slots[2]
  f.stow = (it) => { f.slots[f.slots.indexOf(null, f.inventoryStart)] = it }
  f.beforeTake = () => {}
  f.takeOutput = async () => {
    f.takes++
    f.beforeTake()
    const it = f.slots[2]
    f.slots[2] = null
    if (it) f.stow(it)
  }
  f.putFuel = async (type, metadata, count) => {
    const i = f.slots.findIndex((it, n) => n >= f.inventoryStart && it && it.type === type)
    f.slots[i] = f.slots[i].count > count ? item(type, f.slots[i].count - count) : null
    f.slots[1] = item(type, count)
    f.fuelPut += count
  }
  return f
}

// each scenario: the window as the first poll finds it, and what the server does after each poll
const SCENARIOS = {
  race (f) {
    f.slots[0] = item(ORE, 1)
    f.slots[2] = item(INGOT, 1)
    f.beforeTake = () => { if (f.takes === 1) { f.slots[2] = item(INGOT, 2); f.slots[0] = null } }
    return { count: 2, after () {} }
  },
  shared (f) {
    f.progress = 0
    return { count: 1, after () {} }
  },
  fuel (f) {
    f.slots[0] = item(ORE, 1)
    f.fuel = 0
    f.stow(item(COAL, 2))
    return {
      count: 1,
      after () {
        if (f.slots[1]) { f.slots[1] = null; f.fuel = 1; return }
        if (f.fuel > 0 && f.slots[0]) { f.slots[0] = null; f.slots[2] = item(INGOT, 1) }
      }
    }
  },
  refused (f) {
    f.slots[0] = item(ORE, 1)
    f.slots[2] = item(INGOT, 1)
    const take = f.takeOutput
    f.takeOutput = async () => {
      if (f.takes === 0) {
        f.takes++
        f.slots[2] = item(INGOT, 2) // the window the server resends with its refusal
        f.slots[0] = null
        throw new Error('Server rejected transaction for clicking on slot 2, on window with id 1.')
      }
      return take()
    }
    return { count: 2, after () {} }
  },
  plain (f) {
    f.slots[0] = item(ORE, 2)
    let polls = 0
    return {
      count: 2,
      after () {
        polls++
        if (polls % 2 === 0 && f.slots[0]) {
          f.slots[0] = f.slots[0].count > 1 ? item(ORE, f.slots[0].count - 1) : null
          f.slots[2] = item(INGOT, 1)
        }
      }
    }
  }
}

async function main () {
  const f = furnaceWindow()
  const { count, after } = SCENARIOS[scenario](f)
  const controller = new AbortController()
  const limit = setTimeout(() => controller.abort('limit'), limitMs)
  let polls = 0
  const ctx = { signal: controller.signal, progress () { polls++; after() } }
  const out = { scenario, polls }
  try {
    out.taken = await takeSmelted(ctx, f, { input: 'iron_ore', count, fuelId: COAL })
  } catch (err) {
    if (err instanceof SkillAborted) out.aborted = true
    else { out.reason = err.reason || String(err); out.kind = err.kind || null }
  }
  clearTimeout(limit)
  const held = (type) => f.slots.slice(f.inventoryStart).reduce((n, it) => n + (it && it.type === type ? it.count : 0), 0)
  Object.assign(out, { polls, ingots: held(INGOT), fuel_put: f.fuelPut, poll_ms: POLL_MS })
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch((err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
