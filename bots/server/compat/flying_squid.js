'use strict'
// flying-squid 1.12.0 and prismarine-provider-anvil 2.13.0 (the newest on npm) refuse versions
// newer than their own tables although the rest of the stack (minecraft-data, -protocol,
// prismarine-chunk) speaks them. Called by host.js before flying-squid is loaded; patches the
// loaded modules, never the files in node_modules:
// - flying-squid's `connect` throws "Server version ... is not supported" above 1.21.4: its
//   limit is read from `src/lib/version.js` when `src/index.js` loads, so it is raised in that
//   module's exports first.
// - the anvil provider's chunk table stops at 1.21 ("Unsupported version: 26.1" from
//   flying-squid's world.js): a newer version stores its chunks as 1.18+ ones (the same
//   section and palette layout, which prismarine-chunk reads and writes for it).

const ANVIL_CHUNK = 'prismarine-provider-anvil/src/chunk.js'

function allowVersion (version) {
  const registry = require('prismarine-registry')(version)
  if (!registry || !registry.version) throw new Error(`Minecraft ${version}: minecraft-data has no data for it`)
  const limits = require('flying-squid/src/lib/version')
  if (registry.version['>'](limits.latestSupportedVersion)) limits.latestSupportedVersion = version
  patchAnvil(registry)
}

function patchAnvil (registry) {
  const file = require.resolve(ANVIL_CHUNK)
  const original = require(file)
  if (original.pianoPatched) return
  const patched = (registryOrVersion) => {
    try {
      return original(registryOrVersion)
    } catch (err) {
      const reg = typeof registryOrVersion === 'string' ? require('prismarine-registry')(registryOrVersion) : registryOrVersion
      if (!/Unsupported version/.test(String(err && err.message)) || !reg.version['>=']('1.21')) throw err
      const Chunk = require('prismarine-chunk')(reg)
      return require(require.resolve('prismarine-provider-anvil/src/1.18/chunk'))(Chunk, reg)
    }
  }
  patched.pianoPatched = true
  require.cache[file].exports = patched
}

module.exports = { allowVersion }
