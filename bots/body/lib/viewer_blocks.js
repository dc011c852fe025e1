'use strict'
// The version whose textures and block states the 3D view's page draws a body's world with, and
// the body's chunks and block changes translated into that version's block states.
//
// prismarine-viewer ships assets for a list of versions and maps any other one to the last of
// its minor line (1.21.11 -> 1.21.4, 1.20.4 -> 1.20.1), then reads the body's block state ids
// as that version's. Mojang numbers every block state anew when blocks are added, so those ids
// name other blocks (at 1.21.11 a chest's ids are 1.21.4's ids of another block); for a line it
// does not know (26.x) it draws nothing. Here a state is carried over by its block's name and
// properties; a block the assets' version lacks is drawn as air, a property it lacks takes the
// block's default; a block renamed since (short_grass) is drawn by its former name.
const { getVersion, supportedVersions } = require('prismarine-viewer/viewer/lib/version')
const { version: viewerPackage } = require('prismarine-viewer/package.json')
const { RENAMED } = require('../../server/mc_names')

// a block's name before Mojang renamed it (short_grass -> grass): what older assets call it
const FORMER = Object.fromEntries(Object.entries(RENAMED).map(([before, after]) => [after, before]))

// the newest version the viewer has assets for
const NEWEST = supportedVersions[supportedVersions.length - 1]

/** Numeric parts of a version ("1.21.11" -> [1, 21, 11]) for ordering. */
const parts = (v) => String(v).split('.').map(Number)
function newer (a, b) {
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) > (y[i] || 0)
  }
  return false
}

/**
 * The assets version the page draws ``version`` with: the viewer's own mapping (the last of
 * the minor line), else for a version newer than every one it has, the newest. Throws with
 * the reason for one older than its oldest line.
 */
function assetsVersion (version) {
  const own = getVersion(version)
  if (own) return own
  if (newer(version, NEWEST)) return NEWEST
  throw new Error(`the 3D view cannot draw Minecraft ${version}: prismarine-viewer ${viewerPackage} has ` +
    `textures and block states for ${supportedVersions[0]} to ${NEWEST} only`)
}

/** ``name[key=value,...]`` of a block state: how a state is recognised across versions. */
function stateKey (block) {
  const props = block.getProperties()
  return block.name + '[' + Object.keys(props).sort().map(k => `${k}=${props[k]}`).join(',') + ']'
}

/** Whether two versions number every block state alike (1.16.5 and 1.16.4 do). */
function sameStates (a, b) {
  if (a.blocksArray.length !== b.blocksArray.length) return false
  return a.blocksArray.every((x, i) => {
    const y = b.blocksArray[i]
    return x.name === y.name && x.minStateId === y.minStateId && x.maxStateId === y.maxStateId
  })
}

/**
 * Translates a body's world (at ``version``, its registry ``registry``) into the block states of
 * the assets version ``to`` (default: assetsVersion(version)).
 *   to                          the version the page is told
 *   identity                    true when nothing needs translating
 *   stateId(id)                 the assets version's state id of the body's state ``id``
 *   column(json)                a chunk column's JSON (prismarine-chunk's toJson), translated
 *   missing                     names of the body's blocks the assets lack, seen so far
 */
function blockTranslator (registry, version, to = assetsVersion(version)) {
  const dstRegistry = require('prismarine-registry')(to)
  if (sameStates(registry, dstRegistry)) return { to, identity: true, stateId: (id) => id, column: (json) => json, missing: new Set() }
  const SrcBlock = require('prismarine-block')(registry)
  const DstBlock = require('prismarine-block')(dstRegistry)
  const SrcChunk = require('prismarine-chunk')(registry)
  const DstChunk = require('prismarine-chunk')(dstRegistry)
  const air = dstRegistry.blocksByName.air.defaultState
  const byKey = new Map()
  for (const b of dstRegistry.blocksArray) {
    for (let id = b.minStateId; id <= b.maxStateId; id++) byKey.set(stateKey(DstBlock.fromStateId(id, 0)), id)
  }
  const cache = new Map()
  const missing = new Set()
  function stateId (id) {
    let out = cache.get(id)
    if (out !== undefined) return out
    const block = SrcBlock.fromStateId(id, 0)
    const name = dstRegistry.blocksByName[block.name] ? block.name : FORMER[block.name]
    const same = name && dstRegistry.blocksByName[name]
    if (!same) missing.add(block.name)
    out = byKey.get(stateKey(block).replace(block.name, name)) ?? (same ? same.defaultState : air)
    cache.set(id, out)
    return out
  }
  const biomeId = (id) => {
    const name = registry.biomes[id]?.name
    return dstRegistry.biomesByName[name]?.id ?? dstRegistry.biomesByName.plains.id
  }

  function column (json) {
    const src = SrcChunk.fromJson(json)
    const minY = src.minY ?? 0
    const height = src.worldHeight ?? 256
    const dst = new DstChunk({ minY, worldHeight: height })
    const p = { x: 0, y: 0, z: 0 }
    for (let s = 0; s < height / 16; s++) {
      const sections = src.sections
      if (sections && (!sections[s] || sections[s].solidBlockCount === 0)) continue
      for (let y = minY + s * 16; y < minY + s * 16 + 16; y++) {
        p.y = y
        for (let z = 0; z < 16; z++) {
          p.z = z
          for (let x = 0; x < 16; x++) {
            p.x = x
            const id = src.getBlockStateId(p)
            if (id !== 0) dst.setBlockStateId(p, stateId(id))
          }
        }
      }
    }
    // biomes (the grass and leaves' tint) by name, one per 4x4x4 cell
    for (let y = minY; y < minY + height; y += 4) {
      p.y = y
      for (let z = 0; z < 16; z += 4) {
        p.z = z
        for (let x = 0; x < 16; x += 4) {
          p.x = x
          dst.setBiome(p, biomeId(src.getBiome(p)))
        }
      }
    }
    return dst.toJson()
  }

  return { to, identity: false, stateId, column, missing }
}

module.exports = { assetsVersion, blockTranslator, NEWEST }
