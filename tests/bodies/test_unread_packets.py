"""A body leaves other players' head turns and arm swings unparsed (``bots/body/lib/unread.js``)
and reads everything else: fed the packets a server sends about a walking player, a
minecraft-protocol client wrapped as a body's is emits the move and the entity's spawn and
not its look, head rotation or animation, at every supported version (no server); with
``pianoReadAll`` set (a 3D view of the body is open) it reads them all."""

from __future__ import annotations

import json
import subprocess

import pytest

from agent_runtime.config.models import SUPPORTED_VERSIONS
from bots.node import BOTS_DIR, node_env, node_executable

_SCRIPT = """
const [version, readAll] = process.argv.slice(1)
const mc = require('minecraft-protocol')
const { createSerializer } = require('minecraft-protocol/src/transforms/serializer')
const { skipUnread } = require('./body/lib/unread.js')
const client = new mc.Client(false, version)
skipUnread(client)
if (readAll === 'true') client.pianoReadAll = true
client.state = 'play'
const serializer = createSerializer({ isServer: true, version, state: 'play' })
const seen = []
client.on('packet', (data, meta) => seen.push(meta.name))
const packets = [
  ['rel_entity_move', { entityId: 7, dX: 32, dY: 0, dZ: 0, onGround: true }],
  ['entity_look', { entityId: 7, yaw: 10, pitch: 0, onGround: true }],
  ['entity_head_rotation', { entityId: 7, headYaw: 10 }],
  ['animation', { entityId: 7, animation: 0 }],
  ['block_break_animation', { entityId: 7, location: { x: 1, y: 64, z: 2 }, destroyStage: 3 }],
  ['entity_move_look', { entityId: 7, dX: 0, dY: 0, dZ: 32, yaw: 20, pitch: 0, onGround: true }],
  ['entity_destroy', { entityIds: [7] }]
]
for (const [name, params] of packets) client.deserializer.write(serializer.createPacketBuffer({ name, params }))
setImmediate(() => console.log(JSON.stringify({ seen, unread: client.pianoUnread })))
"""


def _run(version: str, read_all: bool) -> dict[str, object]:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, version, json.dumps(read_all)],
        capture_output=True, text=True, timeout=60, cwd=BOTS_DIR, env=node_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out: dict[str, object] = json.loads(done.stdout)
    return out


@pytest.mark.parametrize("mc_version", SUPPORTED_VERSIONS)
def test_head_turns_arm_swings_and_dig_cracks_are_left_unread(mc_version: str) -> None:
    out = _run(mc_version, read_all=False)
    assert out["seen"] == ["rel_entity_move", "entity_move_look", "entity_destroy"], out
    assert out["unread"] == 4, out
    everything = _run(mc_version, read_all=True)
    assert everything["seen"] == [
        "rel_entity_move", "entity_look", "entity_head_rotation", "animation",
        "block_break_animation", "entity_move_look", "entity_destroy",
    ], everything  # fmt: skip
