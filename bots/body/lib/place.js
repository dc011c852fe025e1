'use strict'
// Placing a block from the inventory at a position (or a free spot next to the bot).
const { Vec3 } = require('vec3')
const { gotoGoal, walkTo, checkRange, goals } = require('./move')
const { SkillError, SkillAborted, resolveNames } = require('./util')

const FACES = [
  new Vec3(0, -1, 0), new Vec3(1, 0, 0), new Vec3(-1, 0, 0),
  new Vec3(0, 0, 1), new Vec3(0, 0, -1), new Vec3(0, 1, 0)
]
const REACH = 4.5

const isFree = (block) => block && (block.boundingBox === 'empty') && !['water', 'lava'].includes(block.name)
const isSolid = (block) => block && block.boundingBox === 'block'

function occupiedByEntity (bot, pos) {
  return Object.values(bot.entities).some(e => (e.type === 'player' || e.type === 'mob') &&
    Math.floor(e.position.x) === pos.x && Math.floor(e.position.z) === pos.z &&
    (Math.floor(e.position.y) === pos.y || Math.floor(e.position.y) + 1 === pos.y))
}

/** A free spot on solid ground within 1..3 blocks of the bot, nearest first. */
function freeSpotNear (bot) {
  const base = bot.entity.position.floored()
  const spots = []
  for (let dx = -3; dx <= 3; dx++) {
    for (let dz = -3; dz <= 3; dz++) {
      for (let dy = -1; dy <= 1; dy++) {
        const p = base.offset(dx, dy, dz)
        const d = Math.abs(dx) + Math.abs(dz)
        if (d < 2) continue
        if (isFree(bot.blockAt(p)) && isSolid(bot.blockAt(p.offset(0, -1, 0))) && !occupiedByEntity(bot, p)) {
          spots.push({ p, d: d + Math.abs(dy) })
        }
      }
    }
  }
  spots.sort((a, b) => a.d - b.d)
  return spots.length ? spots[0].p : null
}

function referenceFor (bot, target) {
  for (const face of FACES) {
    const ref = bot.blockAt(target.plus(face))
    if (isSolid(ref)) return { ref, faceVector: face.scaled(-1) }
  }
  return null
}

/** Place one ``itemName`` at ``target`` (Vec3 or null for "next to me"); returns the placed block. */
async function placeItem (ctx, itemName, target) {
  const bot = ctx.bot
  const names = resolveNames(bot.registry.itemsByName, itemName)
  const item = bot.inventory.items().find(i => names.includes(i.name))
  if (!item) throw new SkillError(`no ${itemName} in inventory`)
  const blockName = item.name
  if (!bot.registry.blocksByName[blockName]) throw new SkillError(`${blockName} is not a placeable block`)
  if (target == null) {
    target = freeSpotNear(bot)
    if (!target) throw new SkillError('no free spot on solid ground within 3 blocks to place on')
  } else {
    target = target.floored()
    if (!bot.blockAt(target) || bot.entity.position.distanceTo(target) > 32) {
      // far or outside the loaded chunks: walk there first (in legs), then look
      checkRange(bot, target, `${target}`)
      ctx.progress(0, `walking to ${target} to place ${itemName}`)
      await walkTo(ctx, target, `${target}`, new goals.GoalNear(target.x, target.y, target.z, 3))
    }
  }
  const here = bot.blockAt(target)
  if (!here) throw new SkillError(`target out of reach: ${target} is not loaded`)
  if (!isFree(here)) throw new SkillError(`position ${target} is occupied by ${here.name}`)
  const reference = referenceFor(bot, target)
  if (!reference) throw new SkillError(`nothing solid next to ${target} to place against`)
  if (bot.entity.position.offset(0, 1.6, 0).distanceTo(target.offset(0.5, 0.5, 0.5)) > REACH) {
    try {
      await walkTo(ctx, target, `${target}`, new goals.GoalNear(target.x, target.y, target.z, 3))
    } catch (err) {
      if (err instanceof SkillAborted) throw err
      throw new SkillError(`target out of reach: ${target} (${err.message})`, err.detail, err.kind)
    }
  }
  if (occupiedByEntity(bot, target)) {
    // Standing on the target spot: step aside first.
    await gotoGoal(ctx, new goals.GoalInvert(new goals.GoalNear(target.x, target.y, target.z, 1.5)), 'a spot beside the target')
  }
  ctx.check()
  await bot.equip(item, 'hand')
  try {
    await bot.placeBlock(reference.ref, reference.faceVector)
  } catch (err) {
    const now = bot.blockAt(target)
    if (!now || now.name !== blockName) throw new SkillError(`placing ${blockName} at ${target} failed: ${err.message}`)
  }
  const placed = bot.blockAt(target)
  if (!placed || placed.name !== blockName) throw new SkillError(`placing ${blockName} at ${target} failed`)
  return placed
}

module.exports = { placeItem, freeSpotNear }
