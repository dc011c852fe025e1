"""Hearing (issue 12): public chat is heard within ``world.hearing_radius`` of the speaker,
whispers anywhere. Unit tests of the body's filter (``bots/body/lib/hearing.js``, run by
Node with fake bots) and of the config field; the real-world check is in
``test_hearing_world.py``."""

from __future__ import annotations

import json
import subprocess

import pytest

from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import HEARING_RADIUS
from bots.node import node_executable
from bots.transport import JSPyBridgeTransport
from bots.transport._host import BODY_DIR

_SCRIPT = """
const { Vec3 } = require('vec3')
const { hears } = require(process.argv[1])
const cases = JSON.parse(process.argv[2])
const out = cases.map(([me, them, radius]) => {
  const bot = { entity: me && { position: new Vec3(...me) }, players: {} }
  if (them !== undefined) bot.players.ann = { entity: them && { position: new Vec3(...them) } }
  return hears(bot, 'ann', radius)
})
console.log(JSON.stringify(out))
"""


def _hears(cases: list[list[object]]) -> list[bool]:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, str(BODY_DIR / "lib" / "hearing.js"),
         json.dumps(cases)],
        capture_output=True, text=True, check=True, cwd=BODY_DIR.parent, timeout=30,
    )
    out: list[bool] = json.loads(done.stdout)
    return out


def test_the_filter_hears_within_the_radius_only() -> None:
    me = [0, 64, 0]
    assert _hears([
        [me, [10, 64, 0], 32],      # 10 blocks: heard
        [me, [32, 64, 0], 32],      # on the edge: heard
        [me, [20, 64, 30], 32],     # 36 blocks: not heard
        [me, [200, 64, 0], 32],     # across the map: not heard
        [me, [200, 64, 0], None],   # no radius: everything the server delivers
        [me, None, 32],             # a speaker this client does not track: not heard
        [None, [1, 64, 0], 32],     # before this body has spawned: nothing heard
    ]) == [True, True, False, False, True, False, False]


def test_hearing_radius_is_validated_and_documented() -> None:
    base = {"world": {"kind": "none"}, "agents": [{"name": "Ann"}]}
    assert parse_config(base, "t").world.hearing_radius == HEARING_RADIUS == 32.0
    loose = {**base, "world": {"kind": "none", "hearing_radius": None}}
    assert parse_config(loose, "t").world.hearing_radius is None
    for bad in (0, -5, 5000):
        with pytest.raises(ConfigError, match="hearing_radius"):
            parse_config({**base, "world": {"kind": "none", "hearing_radius": bad}}, "t")
    with pytest.raises(ValueError, match="hearing_radius"):
        JSPyBridgeTransport(hearing_radius=0)
