'use strict'
// minecraft-data 1.21.x gives the blocks that need a stone pickaxe or better (iron, gold,
// diamond, redstone ores, metal blocks, obsidian) one material, a tag of the tools too weak
// to harvest them ('incorrect_for_wooden_tool'), whose speed table lists only those tools:
// prismarine-block's digTime found no speed for the stone or iron pickaxe there and our body
// dug an iron ore in 4.55 s instead of vanilla's 1.15 s (the skills bench at 1.21.4,
// collect_iron_1). A block whose harvest tools are all pickaxes takes the pickaxe's speeds
// ('mineable/pickaxe'), as at 1.16.5 ('rock'). Returns how many blocks it changed.
function fixDigSpeeds (registry) {
  const materials = registry.materials || {}
  if (!materials['mineable/pickaxe']) return 0
  const pickaxes = new Set(Object.keys(materials['mineable/pickaxe']).map(Number))
  let fixed = 0
  for (const block of registry.blocksArray) {
    if (typeof block.material !== 'string' || !block.material.startsWith('incorrect_for_')) continue
    const tools = Object.keys(block.harvestTools || {}).map(Number)
    if (tools.length === 0 || !tools.every(t => pickaxes.has(t))) continue
    block.material = 'mineable/pickaxe'
    fixed++
  }
  return fixed
}

module.exports = { fixDigSpeeds }
