'use strict'
// The path search's blocks read again from what bots/body/lib/light_blocks.js remembers of
// each cell: read after a block of the world changed, its column was unloaded or loaded
// anew, they are the world as it is now; a search that raises the height of a block it read
// (where it would place one) leaves the next read of that cell as the world says; and A*
// searches across the generated village, digging and placing allowed or not, find the same
// paths after the same number of nodes as mineflayer-pathfinder's own getBlock. Prints what
// each step read and how the searches compared.
const path = require('path')
const { req, villageWorld } = require('./village_world')
const [version] = process.argv.slice(2).map(a => JSON.parse(a))
const { Vec3 } = req('vec3')
const { Movements, goals } = req('mineflayer-pathfinder')
const AStar = req('mineflayer-pathfinder/lib/astar')
const Move = req('mineflayer-pathfinder/lib/move')
const stockGetBlock = Movements.prototype.getBlock
const { registry, world, bot, groundAt } = villageWorld(version, [-3, 2], [-4, 1])
bot.pathfinder = { bestHarvestTool: () => null } // bare hands: what digging through costs
bot.entity = { effects: {} }
const { lightMovements, lightWorld } = require(path.resolve(__dirname, '../../../bots/body/lib/light_blocks.js'))
lightMovements()

// a listener of the world's block changes from before anything was remembered (mineflayer
// forwards them to the bot's listeners, the path keeping among them): it reads the changed cell
const heard = []
world.on('blockUpdate', (oldBlock, newBlock) => {
  const b = movements.getBlock(newBlock.position, 0, 0, 0)
  const p = lightWorld(bot).getBlock(newBlock.position.offset(0.5, 0.5, 0.5))
  heard.push([b.name, p ? p.name : null])
})
const movements = new Movements(bot)
const stock = new Movements(bot)
stock.getBlock = stockGetBlock
const out = {}

// a cell read, changed, unloaded, loaded anew
const x = 3
const z = -5
const floor = new Vec3(x, groundAt(x, z) - 1, z)
const read = () => { const b = movements.getBlock(floor, 0, 0, 0); return b.name || (b.physical ? 'physical' : 'nothing') }
out.first = read()
out.again = read()
lightWorld(bot).getBlock(floor.offset(0.5, 0.5, 0.5)) // remembered by the physics too
world.setBlockStateId(floor, registry.blocksByName.gold_block.defaultState)
out.changed = read()
out.heard = heard.slice()
const cx = Math.floor(x / 16)
const cz = Math.floor(z / 16)
const column = world.getColumn(cx, cz)
world.unloadColumn(cx, cz)
out.unloaded = read()
world.setColumn(cx, cz, column)
out.reloaded = read()

// the physics' world over the same bot: a cell read, changed, unloaded, loaded anew
const physicsWorld = lightWorld(bot)
const feel = () => { const b = physicsWorld.getBlock(floor.offset(0.3, 0.2, 0.7)); return b ? b.name : null }
out.physics = [feel(), feel()]
world.setBlockStateId(floor, registry.blocksByName.stone.defaultState)
out.physics.push(feel())
world.unloadColumn(cx, cz)
out.physics.push(feel())
world.setColumn(cx, cz, column)
out.physics.push(feel())
world.setBlockStateId(floor, registry.blocksByName.gold_block.defaultState)

// a read's height raised by its reader (getMoveJumpUp does that where it would place a block)
const raised = movements.getBlock(floor, 0, 1, 0)
raised.height += 1
out.height_after_raise = movements.getBlock(floor, 0, 1, 0).height
out.height_stock = stockGetBlock.call(stock, floor, 0, 1, 0).height

// searches: ours against the pathfinder's own getBlock
const ROUTES = [[0, -10, 14, -22], [-12, -4, 10, -6], [5, -30, -8, -14], [-20, -20, -2, -40], [-30, 10, 20, -50]]
const summary = (r) => JSON.stringify({ status: r.status, nodes: r.visitedNodes, path: r.path.map(n => [n.x, n.y, n.z, n.cost, n.toBreak.length, n.toPlace.length]) })
out.searches = 0
out.differ = []
out.placing_paths = 0
for (const [canDig, blocks] of [[false, 0], [true, 64]]) {
  for (const m of [movements, stock]) Object.assign(m, { canDig, allow1by1towers: canDig, allowSprinting: true, allowParkour: true })
  for (const [sx, sz, gx, gz] of ROUTES) {
    const start = () => new Move(sx, groundAt(sx, sz), sz, blocks, 0)
    const goal = new goals.GoalBlock(gx, groundAt(gx, gz) + (canDig ? 3 : 0), gz)
    const ours = new AStar(start(), movements, goal, 10000, 10000).compute()
    const theirs = new AStar(start(), stock, goal, 10000, 10000).compute()
    out.searches++
    if (ours.path.some(n => n.toPlace.length > 0)) out.placing_paths++
    if (summary(ours) !== summary(theirs)) out.differ.push([sx, sz, gx, gz, canDig])
  }
}
process.stdout.write(JSON.stringify(out))
