'use strict'
// The village plan: from a seed and a layout (agent_runtime/config/layout.py,
// same field names) compute, once, the terrain height function and every
// hand-placed block (town hall, farm, pasture, roads, cave, guaranteed ore
// exposures), grouped by chunk. index.js turns the plan into chunks.
// Everything here is deterministic for (seed, layout).

const { hash, unit, prng, noise2, smooth } = require('./random')
const { Wild, WILD_FROM, WILD_FULL, SEA } = require('./wild')
const { blockName } = require('../mc_names')

const DEFAULT_LAYOUT = {
  centre_x: 0,
  centre_z: 0,
  ground_level: 64,
  town_hall: { dx: -7, dz: -22, width: 15, depth: 9 },
  community_chests: 4,
  farm: { dx: 12, dz: -6, width: 13, depth: 13 },
  crops: ['wheat', 'carrots', 'potatoes'],
  pasture: { dx: -28, dz: -6, width: 15, depth: 15 },
  animals: { cow: 3, sheep: 3, pig: 2, chicken: 3 },
  forest: { dx: 0, dz: 34, radius: 20 },
  tree_species: ['oak', 'birch'],
  forest_density: 0.55,
  sparse_tree_density: 0.04,
  hills: { dx: 40, dz: 26, radius: 18 },
  hill_height: 22,
  cave: true,
  lake: { dx: -32, dz: 30, radius: 9 },
  roads: true
}

// Ore veins: cell size 4; probability per cell; y range (inclusive)
const ORES = [
  { name: 'diamond_ore', p: 0.012, minY: 1, maxY: 15, fill: 0.3 },
  { name: 'redstone_ore', p: 0.02, minY: 1, maxY: 15, fill: 0.35 },
  { name: 'gold_ore', p: 0.015, minY: 1, maxY: 31, fill: 0.35 },
  { name: 'lapis_ore', p: 0.01, minY: 1, maxY: 30, fill: 0.3 },
  { name: 'iron_ore', p: 0.03, minY: 1, maxY: 64, fill: 0.35 },
  { name: 'coal_ore', p: 0.04, minY: 1, maxY: 127, fill: 0.4 }
]

function rectBox (centreX, centreZ, r) {
  return { x0: centreX + r.dx, z0: centreZ + r.dz, x1: centreX + r.dx + r.width - 1, z1: centreZ + r.dz + r.depth - 1 }
}

function distToBox (x, z, b) {
  const dx = Math.max(b.x0 - x, 0, x - b.x1)
  const dz = Math.max(b.z0 - z, 0, z - b.z1)
  return Math.sqrt(dx * dx + dz * dz)
}

class StateIds {
  constructor (registry) {
    this.registry = registry
    this.cache = new Map()
  }

  // state id of a block with some properties (others default)
  get (name, props = {}) {
    const key = name + JSON.stringify(props)
    let id = this.cache.get(key)
    if (id !== undefined) return id
    const block = this.registry.blocksByName[blockName(this.registry, name)]
    const states = block.states || []
    let data = 0
    let rest = block.defaultState - block.minStateId
    let offset = 1
    for (let i = states.length - 1; i >= 0; i--) {
      const st = states[i]
      let v = rest % st.num_values
      rest = Math.floor(rest / st.num_values)
      if (props[st.name] !== undefined) {
        const want = props[st.name]
        if (st.type === 'bool') v = want ? 0 : 1
        else if (st.type === 'enum') v = st.values.indexOf(String(want))
        else v = parseInt(want, 10)
        if (v < 0) throw new Error(`bad value ${want} for ${name}.${st.name}`)
      }
      data += offset * v
      offset *= st.num_values
    }
    id = block.minStateId + data
    this.cache.set(key, id)
    return id
  }
}

class VillagePlan {
  constructor ({ seed, layout, registry }) {
    this.seed = (seed | 0) >>> 0
    this.layout = { ...DEFAULT_LAYOUT, ...(layout || {}) }
    this.registry = registry
    this.S = new StateIds(registry)
    const L = this.layout
    this.cx = L.centre_x
    this.cz = L.centre_z
    this.G = L.ground_level
    this.boxes = {
      town_hall: rectBox(this.cx, this.cz, L.town_hall),
      farm: rectBox(this.cx, this.cz, L.farm),
      pasture: rectBox(this.cx, this.cz, L.pasture)
    }
    this.plaza = { x0: this.cx - 4, z0: this.cz - 4, x1: this.cx + 4, z1: this.cz + 4 }
    this.forest = { x: this.cx + L.forest.dx, z: this.cz + L.forest.dz, r: L.forest.radius }
    this.hills = { x: this.cx + L.hills.dx, z: this.cz + L.hills.dz, r: L.hills.radius }
    this.lake = { x: this.cx + L.lake.dx, z: this.cz + L.lake.dz, r: L.lake.radius }
    this.wild = new Wild(this.seed, this.G)
    this.features = new Map() // "cx,cz" -> [[x, y, z, stateId, onlyIfSolid]]
    this.treeBlocked = new Set() // "x,z" columns where no tree may grow (roads)
    this.places = []
    this.chests = []
    this.buildAll()
  }

  // ---------- terrain ----------
  flatWeight (x, z) {
    let d = distToBox(x, z, this.plaza) - 4
    for (const b of Object.values(this.boxes)) d = Math.min(d, distToBox(x, z, b) - 4)
    if (d <= 0) return 0
    return smooth(Math.min(1, d / 10))
  }

  hillContribution (x, z) {
    const h = this.hills
    const dx = x - h.x
    const dz = z - h.z
    const wobble = 0.85 + 0.3 * noise2(this.seed ^ 0x51, x, z, 7)
    const r = Math.sqrt(dx * dx + dz * dz) / (h.r * wobble)
    if (r >= 1) return 0
    const t = smooth(1 - r)
    return this.layout.hill_height * t * (0.85 + 0.3 * noise2(this.seed ^ 0x77, x, z, 5))
  }

  lakeDepth (x, z) {
    const l = this.lake
    const d = Math.sqrt((x - l.x) ** 2 + (z - l.z) ** 2)
    const r = l.r * (0.9 + 0.2 * noise2(this.seed ^ 0x3a, x, z, 4))
    if (d >= r) return { depth: 0, shore: d < r + 2 }
    return { depth: Math.max(1, Math.round(4 * Math.sqrt(1 - d / r))), shore: false }
  }

  // distance from the village centre, and the wild's share of the terrain there (0..1)
  wildShare (x, z) {
    const d = Math.sqrt((x - this.cx) ** 2 + (z - this.cz) ** 2)
    if (d <= WILD_FROM) return 0
    if (d >= WILD_FULL) return 1
    return smooth((d - WILD_FROM) / (WILD_FULL - WILD_FROM))
  }

  // surface (top solid block) height and kind of a column: {height, top, water, hill, rich}
  column (x, z) {
    const b = this.wildShare(x, z)
    if (b === 1) return this.wild.column(x, z)
    const v = this.villageColumn(x, z)
    if (b === 0) return v
    const w = this.wild.column(x, z)
    const height = Math.round(v.height * (1 - b) + w.height * b)
    if (b < 0.5) return { ...v, height }
    if (w.water > 0) return height < SEA ? { ...w, height } : { ...w, height, top: 'sand', water: -1 }
    return { ...w, height }
  }

  villageColumn (x, z) {
    const G = this.G
    const rolling = (noise2(this.seed, x, z, 24) - 0.5) * 8 + (noise2(this.seed ^ 0x1234, x, z, 9) - 0.5) * 3
    const w = this.flatWeight(x, z)
    const hill = this.hillContribution(x, z)
    const lake = this.lakeDepth(x, z)
    let height = Math.round(G + rolling * w * (lake.depth || lake.shore ? 0 : 1) + hill)
    let top = 'grass_block'
    if (lake.depth > 0) {
      height = G - 1 - lake.depth
      top = 'sand'
    } else if (lake.shore) {
      height = G
      top = 'sand'
    } else if (hill > 3 && noise2(this.seed ^ 0x99, x, z, 3) < 0.75) {
      top = 'stone'
    }
    return { height, top, water: lake.depth > 0 ? G - 1 : -1, hill, rich: false }
  }

  // ---------- features ----------
  put (x, y, z, state, onlyIfSolid = false) {
    if (y < 1 || y > 255) return
    const key = (x >> 4) + ',' + (z >> 4)
    let list = this.features.get(key)
    if (!list) { list = []; this.features.set(key, list) }
    list.push([x, y, z, state, onlyIfSolid])
  }

  place (name, x, y, z, description) {
    this.places.push({ name, x, y, z, description })
  }

  buildAll () {
    const G = this.G
    this.buildPlaza()
    this.buildTownHall()
    this.buildFarm()
    this.buildPasture()
    if (this.layout.roads) this.buildRoads()
    if (this.layout.cave) this.buildCave()
    const f = this.forest
    const fy = this.column(f.x, f.z - f.r + 2).height + 1
    this.place('forest', f.x, fy, f.z - f.r + 2, `edge of the ${this.layout.tree_species.join(' and ')} forest (logs, saplings, apples)`)
    const l = this.lake
    this.place('lake', l.x, G, l.z, 'the lake (water, sand, clay)')
    const h = this.hills
    this.place('hills', h.x, this.column(h.x, h.z).height + 1, h.z, 'top of the stone hills (stone, coal)')
  }

  buildPlaza () {
    const S = this.S
    const G = this.G
    for (let x = this.plaza.x0; x <= this.plaza.x1; x++) {
      for (let z = this.plaza.z0; z <= this.plaza.z1; z++) {
        this.put(x, G, z, S.get('stone_bricks'))
        this.treeBlocked.add(x + ',' + z)
      }
    }
    this.spawn = { x: this.cx, y: G + 1, z: this.cz }
    this.place('village_centre', this.cx, G + 1, this.cz, 'the village square where everyone spawns')
  }

  buildTownHall () {
    const S = this.S
    const G = this.G
    const b = this.boxes.town_hall
    const H = 5 // wall height
    const doorX = Math.floor((b.x0 + b.x1) / 2)
    for (let x = b.x0; x <= b.x1; x++) {
      for (let z = b.z0; z <= b.z1; z++) {
        const edgeX = x === b.x0 || x === b.x1
        const edgeZ = z === b.z0 || z === b.z1
        this.put(x, G, z, S.get('oak_planks'))
        for (let y = G + 1; y <= G + H; y++) {
          let state = 0
          if (edgeX && edgeZ) state = S.get('oak_log')
          else if (edgeX || edgeZ) {
            const window = y === G + 2 && ((edgeZ && (x - b.x0) % 3 === 1) || (edgeX && (z - b.z0) % 3 === 1))
            state = window ? S.get('glass') : S.get('cobblestone')
            if (z === b.z1 && (x === doorX || x === doorX + 1 || x === doorX - 1) && y <= G + 3) state = 0
          }
          this.put(x, y, z, state)
        }
        this.put(x, G + H + 1, z, S.get(edgeX || edgeZ ? 'oak_planks' : 'spruce_planks'))
      }
    }
    // community chests along the north wall, facing south; crafting table and furnace in the corners
    const n = this.layout.community_chests
    const inner0 = b.x0 + 2
    for (let i = 0; i < n; i++) {
      const x = inner0 + i * 2
      if (x > b.x1 - 2) break
      const z = b.z0 + 1
      this.put(x, G + 1, z, S.get('chest', { facing: 'south' }))
      this.chests.push({ x, y: G + 1, z })
    }
    this.put(b.x1 - 1, G + 1, b.z0 + 1, S.get('crafting_table'))
    this.put(b.x0 + 1, G + 1, b.z1 - 1, S.get('furnace', { facing: 'east' }))
    for (const [x, z] of [[b.x0 + 1, b.z0 + 1], [b.x1 - 1, b.z1 - 1]]) this.put(x, G + 3, z, S.get('torch'))
    this.townHallDoor = { x: doorX, y: G + 1, z: b.z1 + 1 }
    this.place('town_hall', doorX, G + 1, b.z1 - 2, `inside the town hall: ${this.chests.length} community chests on the north wall, a crafting table and a furnace`)
  }

  buildFarm () {
    const S = this.S
    const G = this.G
    const b = this.boxes.farm
    const crops = this.layout.crops
    const maxAge = { wheat: 7, carrots: 7, potatoes: 7, beetroots: 3 }
    let row = 0
    for (let z = b.z0 + 1; z <= b.z1 - 1; z++, row++) {
      const water = row % 4 === 2
      const crop = crops[Math.floor(row / 4) % crops.length]
      for (let x = b.x0 + 1; x <= b.x1 - 1; x++) {
        if (water) {
          this.put(x, G, z, S.get('water'))
        } else {
          this.put(x, G, z, S.get('farmland', { moisture: 7 }))
          this.put(x, G + 1, z, S.get(crop, { age: maxAge[crop] }))
        }
        this.treeBlocked.add(x + ',' + z)
      }
    }
    for (let x = b.x0; x <= b.x1; x++) {
      for (const z of [b.z0, b.z1]) this.put(x, G, z, S.get('grass_path'))
    }
    for (let z = b.z0; z <= b.z1; z++) {
      for (const x of [b.x0, b.x1]) this.put(x, G, z, S.get('grass_path'))
    }
    this.place('farm', Math.floor((b.x0 + b.x1) / 2), G + 1, b.z0, `the farm (${crops.join(', ')}; ripe crops, water channels)`)
  }

  buildPasture () {
    const S = this.S
    const G = this.G
    const b = this.boxes.pasture
    const gateZ = Math.floor((b.z0 + b.z1) / 2)
    const isFence = (x, z) => (x === b.x0 || x === b.x1 || z === b.z0 || z === b.z1) &&
      !(x === b.x1 && (z === gateZ || z === gateZ + 1))
    for (let x = b.x0; x <= b.x1; x++) {
      for (let z = b.z0; z <= b.z1; z++) {
        if (!isFence(x, z)) continue
        this.put(x, G + 1, z, S.get('oak_fence', {
          east: isFence(x + 1, z) && x + 1 <= b.x1,
          west: isFence(x - 1, z) && x - 1 >= b.x0,
          north: isFence(x, z - 1) && z - 1 >= b.z0,
          south: isFence(x, z + 1) && z + 1 <= b.z1
        }))
      }
    }
    for (let x = b.x0; x <= b.x1; x++) for (let z = b.z0; z <= b.z1; z++) this.treeBlocked.add(x + ',' + z)
    // animal spawn spots: deterministic, inside the fence
    this.animals = []
    const rnd = prng(hash(this.seed, 0xa11))
    for (const [name, count] of Object.entries(this.layout.animals)) {
      for (let i = 0; i < count; i++) {
        const x = b.x0 + 2 + Math.floor(rnd() * (b.x1 - b.x0 - 3))
        const z = b.z0 + 2 + Math.floor(rnd() * (b.z1 - b.z0 - 3))
        this.animals.push({ name, x: x + 0.5, y: G + 1, z: z + 0.5 })
      }
    }
    this.place('pasture', b.x1 + 1, G + 1, gateZ, `the fenced pasture (${Object.keys(this.layout.animals).join(', ')}); gate on its east side`)
  }

  road (x0, z0, x1, z1) {
    const S = this.S
    const path = S.get('grass_path')
    const seg = (ax, az, bx, bz) => {
      const n = Math.max(Math.abs(bx - ax), Math.abs(bz - az))
      for (let i = 0; i <= n; i++) {
        const x = Math.round(ax + (bx - ax) * i / Math.max(1, n))
        const z = Math.round(az + (bz - az) * i / Math.max(1, n))
        for (let w = -1; w <= 1; w++) {
          const px = ax === bx ? x + w : x
          const pz = ax === bx ? z : z + w
          const col = this.column(px, pz)
          if (col.water < 0 && col.hill < 1) this.put(px, col.height, pz, path, true)
          this.treeBlocked.add(px + ',' + pz)
          for (let k = -1; k <= 1; k++) this.treeBlocked.add((px + k) + ',' + (pz + k))
        }
      }
    }
    seg(x0, z0, x1, z0)
    seg(x1, z0, x1, z1)
  }

  buildRoads () {
    const { cx, cz } = this
    const th = this.townHallDoor
    this.road(cx, cz - 5, th.x, th.z)
    const farm = this.boxes.farm
    this.road(cx + 5, cz, farm.x0 - 1, Math.floor((farm.z0 + farm.z1) / 2))
    const pas = this.boxes.pasture
    this.road(cx - 5, cz, pas.x1 + 2, Math.floor((pas.z0 + pas.z1) / 2))
    this.road(cx, cz + 5, this.forest.x, this.forest.z - this.forest.r + 2)
  }

  buildCave () {
    const S = this.S
    const h = this.hills
    // entrance on the hill's side that faces the village centre
    let ax = this.cx - h.x
    let az = this.cz - h.z
    const len = Math.sqrt(ax * ax + az * az) || 1
    ax /= len
    az /= len
    const ex = Math.round(h.x + ax * h.r * 0.95)
    const ez = Math.round(h.z + az * h.r * 0.95)
    const path = []
    let floor = this.column(ex, ez).height
    // straight descent into the hill: 1 down every 2 forward
    const straight = Math.round(h.r * 0.55)
    for (let i = 0; i <= straight * 2; i++) {
      const t = i / 2
      path.push({ x: ex - ax * t, z: ez - az * t, floor: Math.round(floor - t / 2) })
    }
    floor = path[path.length - 1].floor
    // helix around the hill centre down to diamond depth
    const last = path[path.length - 1]
    const rad = Math.max(4, Math.sqrt((last.x - h.x) ** 2 + (last.z - h.z) ** 2))
    let ang = Math.atan2(last.z - h.z, last.x - h.x)
    const bottom = 12
    let step = 0
    while (floor > bottom) {
      ang += 0.5 / rad
      step++
      const f = Math.round(floor - step * 0.25)
      path.push({ x: h.x + Math.cos(ang) * rad, z: h.z + Math.sin(ang) * rad, floor: Math.max(bottom, f) })
      if (f <= bottom) break
    }
    const air = new Set()
    const carve = (x, y, z) => {
      const k = x + ',' + y + ',' + z
      if (air.has(k) || y < 2) return
      air.add(k)
      this.put(x, y, z, 0)
    }
    for (const p of path) {
      const bx = Math.round(p.x)
      const bz = Math.round(p.z)
      for (let dx = -1; dx <= 1; dx++) {
        for (let dz = -1; dz <= 1; dz++) {
          for (let y = p.floor + 1; y <= p.floor + 3; y++) carve(bx + dx, y, bz + dz)
        }
      }
    }
    // chamber at the bottom
    const end = path[path.length - 1]
    const chx = Math.round(end.x)
    const chz = Math.round(end.z)
    for (let dx = -3; dx <= 3; dx++) {
      for (let dz = -3; dz <= 3; dz++) {
        for (let dy = 1; dy <= 4; dy++) if (dx * dx + dz * dz + (dy - 2) * (dy - 2) <= 12) carve(chx + dx, bottom + dy, chz + dz)
      }
    }
    // guaranteed ore exposures in the walls: [path index range, ore]
    const exposures = [
      [4, 9, 'coal_ore'], [12, 18, 'iron_ore'], [20, 26, 'iron_ore'], [28, 32, 'coal_ore']
    ]
    const wallOre = (p, ore, side) => {
      // perpendicular to the tunnel direction at this point
      const px = -az * side
      const pz = ax * side
      for (let k = 0; k < 2; k++) {
        const x = Math.round(p.x + px * 2)
        const z = Math.round(p.z + pz * 2)
        const y = p.floor + 1 + k
        if (!air.has(x + ',' + y + ',' + z)) this.put(x, y, z, S.get(ore), true)
      }
    }
    for (const [i0, i1, ore] of exposures) {
      for (let i = i0; i <= Math.min(i1, path.length - 1); i++) wallOre(path[i], ore, (i % 2) ? 1 : -1)
    }
    // deeper: gold around y 20-30, diamonds and redstone in the chamber walls
    for (const p of path) {
      if (p.floor <= 30 && p.floor >= 20 && hash(this.seed, Math.round(p.x), p.floor, Math.round(p.z)) % 5 === 0) {
        this.put(Math.round(p.x), p.floor, Math.round(p.z), S.get('gold_ore'), true)
      }
    }
    const rnd = prng(hash(this.seed, 0xd1a))
    let diamonds = 0
    for (let dx = -4; dx <= 4; dx++) {
      for (let dz = -4; dz <= 4; dz++) {
        for (let dy = 0; dy <= 4; dy++) {
          const x = chx + dx
          const y = bottom + dy
          const z = chz + dz
          if (air.has(x + ',' + y + ',' + z)) continue
          // a wall block: next to carved air
          const nearAir = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
            .some(([a, b, c]) => air.has((x + a) + ',' + (y + b) + ',' + (z + c)))
          if (!nearAir) continue
          const r = rnd()
          if (r < 0.1 || (diamonds < 3 && r < 0.2)) { this.put(x, y, z, S.get('diamond_ore'), true); diamonds++ } else if (r < 0.25) this.put(x, y, z, S.get('redstone_ore'), true)
        }
      }
    }
    this.caveAir = air
    const entranceY = this.column(ex, ez).height + 1
    this.place('cave', ex, entranceY, ez, 'cave entrance in the stone hills: coal and iron ore near the entrance, gold deeper, diamonds at the bottom')
    this.caveBottom = { x: chx, y: bottom + 1, z: chz }
  }

  // ---------- trees ----------
  // trees whose blocks may reach the chunk: list of {x, z, species, height}
  treesNear (x0, z0, x1, z1) {
    const trees = []
    const cell = 4
    for (let gx = Math.floor((x0 - 3) / cell); gx <= Math.floor((x1 + 3) / cell); gx++) {
      for (let gz = Math.floor((z0 - 3) / cell); gz <= Math.floor((z1 + 3) / cell); gz++) {
        const h = hash(this.seed, gx, gz, 0x7ee)
        const x = gx * cell + (h & 1)
        const z = gz * cell + ((h >>> 1) & 1)
        const f = this.forest
        const inForest = (x - f.x) ** 2 + (z - f.z) ** 2 <= f.r * f.r
        const wild = this.wildShare(x, z) >= 0.5
        const p = wild ? this.wild.treeDensity(x, z) : (inForest ? this.layout.forest_density : this.layout.sparse_tree_density)
        if (unit(this.seed, gx, gz, 0x7ef) >= p) continue
        if (this.treeBlocked.has(x + ',' + z)) continue
        if (this.flatWeight(x, z) < 0.5) continue
        const col = this.column(x, z)
        if (col.top !== 'grass_block' || col.hill > 1.5) continue
        const species = wild ? this.wild.treeSpecies(x, z, h) : this.layout.tree_species[(h >>> 2) % this.layout.tree_species.length]
        trees.push({ x, z, y: col.height + 1, species, height: 4 + ((h >>> 5) % 3) + (species === 'birch' ? 1 : 0), h })
      }
    }
    return trees
  }

  treeBlocks (t, emit) {
    const S = this.S
    const log = S.get(t.species + '_log')
    const leaves = S.get(t.species + '_leaves', { persistent: true, distance: '1' })
    const top = t.y + t.height - 1
    if (t.species === 'spruce') {
      for (let y = t.y + 1; y <= top + 1; y++) {
        const r = y === top + 1 ? 0 : ((top - y) % 2 === 0 ? 1 : 2)
        for (let dx = -r; dx <= r; dx++) {
          for (let dz = -r; dz <= r; dz++) {
            if (Math.abs(dx) === r && Math.abs(dz) === r && r > 0) continue
            emit(t.x + dx, y, t.z + dz, leaves, true)
          }
        }
      }
    } else {
      for (let y = top - 2; y <= top + 1; y++) {
        const r = y >= top ? 1 : 2
        for (let dx = -r; dx <= r; dx++) {
          for (let dz = -r; dz <= r; dz++) {
            const corner = Math.abs(dx) === r && Math.abs(dz) === r
            if (corner && (r === 1 ? y === top + 1 : unit(t.h, dx, y, dz) < 0.5)) continue
            emit(t.x + dx, y, t.z + dz, leaves, true)
          }
        }
      }
    }
    for (let y = t.y; y <= top; y++) emit(t.x, y, t.z, log, false)
  }

  // ore at a stone position, or null
  oreAt (x, y, z) {
    for (let i = 0; i < ORES.length; i++) {
      const o = ORES[i]
      if (y < o.minY || y > o.maxY) continue
      if (unit(this.seed, x >> 2, y >> 2, z >> 2, i + 1) >= o.p) continue
      if (unit(this.seed, x, y, z, 0x0e + i) < o.fill) return o.name
    }
    return null
  }

  summary () {
    return {
      seed: this.seed,
      spawn: this.spawn,
      places: this.places,
      chests: this.chests,
      animals: this.animals,
      caveBottom: this.caveBottom || null,
      layout: this.layout
    }
  }
}

module.exports = { VillagePlan, StateIds, DEFAULT_LAYOUT }
