'use strict'
// Eating. flying-squid ignores a player's use of a food item (`use_item`; before 1.9
// `block_place` with direction -1), so a body's `eat` waited for a "finished eating" that
// never came (the skills bench: eat 0 % at 1.16.5 and at 1.21.4). As a vanilla server: 32
// ticks after the use, if the player still holds that food in that slot, one is taken from
// the stack, food and saturation rise by the food's points (minecraft-data's foods) and the
// player is told it finished (entity_status 9), which mineflayer's consume() waits for. Not
// done: a golden apple's effects, eating interrupted by a hit, the other players' animation.

const EAT_MS = 1600 // 32 ticks
const ALWAYS = new Set(['golden_apple', 'enchanted_golden_apple', 'chorus_fruit']) // edible when full

module.exports.player = function (player, serv) {
  const foods = serv.registry.foodsByName || {}
  let timer = null

  function start () {
    const slot = 36 + player.heldItemSlot
    const held = player.inventory.slots[slot]
    const food = held && foods[held.name]
    if (!food) return
    if (player.food >= 20 && !ALWAYS.has(held.name) && player.gameMode !== 1) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      const now = player.inventory.slots[slot]
      if (!now || now.type !== held.type || 36 + player.heldItemSlot !== slot) return
      const W = serv.piano.windows
      const left = W.clone(now)
      left.count -= 1
      W.setInvSlot(player, slot, left.count > 0 ? left : null)
      player.food = Math.min(20, (player.food || 0) + food.foodPoints)
      player.foodSaturation = Math.min(player.food, (player.foodSaturation || 0) + food.saturation)
      player.updateFood(player.food) // update_health: health, food, saturation
      player._client.write('entity_status', { entityId: player.id, entityStatus: 9 })
    }, EAT_MS)
  }

  player._client.on('use_item', start)
  player._client.on('block_place', (packet) => { if (packet && packet.direction === -1) start() })
  player._client.on('end', () => { if (timer) clearTimeout(timer) })
}
