'use strict'
// Prints (as one JSON line) what the JS side of the body contract declares and produces,
// without a server: the skill table, a disconnected observation, and skill-runner outcomes
// (JS-side argument checks, timeout, cancel, stuck detector) driven by a fake bot.
const path = require('path')
const BODY = path.resolve(__dirname, '../../../bots/body')
const { Vec3 } = require(path.resolve(BODY, '../node_modules/vec3'))
const { describeSkills, SKILLS } = require(path.join(BODY, 'skills'))
const { snapshot } = require(path.join(BODY, 'plugins/observe'))
const { SkillRunner } = require(path.join(BODY, 'plugins/runner'))
const { sleep } = require(path.join(BODY, 'lib/util'))

SKILLS.__wait = { name: '__wait', args: {}, run: (ctx) => sleep(60000, ctx.signal) }
SKILLS.__still = { name: '__still', stationary: true, args: {}, run: (ctx) => sleep(1500, ctx.signal).then(() => ({})) }

const fakeBot = {
  entity: { position: new Vec3(1, 2, 3) },
  inventory: { slots: [] },
  clearControlStates () {}
}
const body = { bot: fakeBot, connected: true, random: Math.random, chatLog: [], runner: null }

async function main () {
  const outcomes = {}
  const done = {}
  const runner = new SkillRunner(body, (callId, outcome) => { outcomes[callId] = outcome; if (done[callId]) done[callId]() }, { stuckMs: 1000 })
  body.runner = runner
  const run = (callId, name, args, timeoutMs) => new Promise(resolve => {
    done[callId] = resolve
    runner.start(callId, name, args, timeoutMs)
  })
  await run('unknown', 'fly', {}, 1000)
  await run('extra', 'idle', { seconds: 1, speed: 2 }, 1000)
  await run('missing', 'collect', {}, 1000)
  await run('type', 'collect', { block: 3 }, 1000)
  await run('timeout', '__wait', {}, 300)
  const cancelled = run('cancel', '__wait', {}, 5000)
  setTimeout(() => runner.cancel('cancelled', 'cancelled by the controller'), 100)
  await cancelled
  await run('stuck', '__wait', {}, 10000)
  await run('stationary', '__still', {}, 10000)
  body.connected = false
  const observation = snapshot(body)
  await run('offline', 'idle', {}, 1000)
  delete SKILLS.__wait
  delete SKILLS.__still
  process.stdout.write(JSON.stringify({ skills: describeSkills(), observation, outcomes }) + '\n')
}

main().catch((err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
