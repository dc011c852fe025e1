'use strict'
// Packets only a creative-mode client may send. flying-squid applied set_creative_slot in any
// game mode, so a survival client could write 64 diamonds into its hotbar and throw them.
// As a vanilla server does, it is applied only in creative mode (slots 1-45, a stack no
// larger than the item's own); in survival and adventure it is refused (counted) and the
// client is sent the slot as the server has it, so its screen shows the truth again.
// Also a held-item choice outside the hotbar (vanilla: "invalid carried item"), which
// flying-squid took as it came (slot 36 + 9 is the off hand, beyond is nothing).
// The creative-only clicks (clone, middle-button drag) are refused in windows.js.

const CREATIVE = 1

module.exports.player = function (player, serv) {
  player.once('asap', () => {
    const W = serv.piano.windows
    const Item = W.Item
    const refuse = (kind, detail) => serv.piano.refuse?.(player, kind, detail)
    // replace flying-squid's listeners (inventory.js registers them after our plugins run)
    const heldListeners = player._client.listeners('held_item_slot')
    player._client.removeAllListeners('set_creative_slot')
    player._client.removeAllListeners('held_item_slot')

    player._client.on('set_creative_slot', ({ slot, item } = {}) => {
      const valid = Number.isInteger(slot) && slot >= 1 && slot <= 45
      const given = readItem(Item, item)
      if (player.gameMode !== CREATIVE || !valid || (given && given.count > W.maxStack(given))) {
        refuse('creative_packet', `set_creative_slot ${slot} in game mode ${player.gameMode}`)
        if (valid) W.sendSlot(player, 0, slot, player.inventory.slots[slot] || null)
        W.sendSlot(player, -1, -1, player.cursor || null)
        return
      }
      W.setInvSlot(player, slot, given)
    })

    player._client.on('held_item_slot', (packet = {}) => {
      const slotId = packet.slotId
      if (!Number.isInteger(slotId) || slotId < 0 || slotId > 8) {
        refuse('held_item_slot', `slot ${slotId}`)
        player._client.write('held_item_slot', { slot: player.heldItemSlot || 0 })
        return
      }
      for (const fn of heldListeners) fn.call(player._client, packet)
    })
  })
}

function readItem (Item, notch) {
  if (!notch) return null
  try {
    const item = Item.fromNotch(notch)
    return item && item.count > 0 ? item : null
  } catch (err) {
    return null
  }
}
