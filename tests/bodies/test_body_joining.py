"""A body still joining survives block packets sent before its world exists (no server).

Seen in ``piano bench skills --agents 5``: a body joining while others dug at the hills got
another body's dig animation before its world existed; mineflayer's handler threw inside the
packet parser, the connection broke and the body "did not spawn within 60 s".
"""

from __future__ import annotations

import subprocess

from bots.node import node_executable
from bots.transport._host import BODY_DIR

# A TCP server that accepts and never answers: the body stays in its login phase. Once its
# plugins are in, the packet a joining body can get first is fed to its client.
_SCRIPT = """
const net = require('net')
const { Body } = require(process.argv[1])
const server = net.createServer(() => {}).listen(0, '127.0.0.1', () => {
  const port = server.address().port
  const body = new Body({ name: 'joiner', host: '127.0.0.1', port, version: '1.16.5' },
    { seed: 1 }, () => {}, () => {}, () => {})
  body.start(5000).catch(() => {})
  body.bot.once('inject_allowed', () => setTimeout(() => {
    let threw = null
    try {
      body.bot._client.emit('block_break_animation', { entityId: 7, location: { x: 1, y: 64, z: 2 }, destroyStage: 3 })
      body.bot._client.emit('block_action', { location: { x: 1, y: 64, z: 2 }, byte1: 1, byte2: 1, blockId: 1 })
    } catch (err) { threw = String(err) }
    console.log(JSON.stringify({ world: Boolean(body.bot.world), threw }))
    process.exit(0)
  }, 50))
})
"""


def test_a_block_packet_before_the_world_exists_does_not_break_the_body() -> None:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, str(BODY_DIR / "body.js")],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=BODY_DIR.parent,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == '{"world":false,"threw":null}', done.stdout
