'use strict'
// Names of blocks and items at the served Minecraft version. Our generator, drops and skills
// were written with 1.16.5 names; Mojang renamed a few since (minecraft-data has each
// version's names but not the history). `blockName(registry, name)` is `name` if the version
// has it, else its later name if the version has that, else an error: a name the version does
// not know never passes silently.

const RENAMED = {
  grass: 'short_grass', // 1.20.3
  grass_path: 'dirt_path' // 1.17
}

function resolve (byName, name, what) {
  if (byName[name]) return name
  const later = RENAMED[name]
  if (later && byName[later]) return later
  throw new Error(`unknown ${what} ${name} at this Minecraft version`)
}

const blockName = (registry, name) => resolve(registry.blocksByName, name, 'block')
const itemName = (registry, name) => resolve(registry.itemsByName, name, 'item')

module.exports = { RENAMED, blockName, itemName }
