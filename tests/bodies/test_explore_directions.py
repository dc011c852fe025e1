"""Which way ``explore`` goes (issue 18), in a fake world: ``rankDirections`` of
``bots/body/skills/explore.js``, run by Node with a fake bot.

Explore used to pick four random directions and walk 48 blocks each way: into lakes, up
cliffs and through woods it could not pass, an explorer failed "could not explore 48
blocks in 4 directions" in 425 of 1584 explores (item progression, 25 agents, 30 min).
It now looks along 16 directions over the ground its client has loaded, as a player looks
across the land, and walks where the land looks walkable furthest and new.
"""

from __future__ import annotations

import json
import math
import subprocess
from typing import Any

from bots.node import node_env, node_executable
from bots.transport._host import BODY_DIR

# Ground (grass) at y 63 within 60 blocks of the origin (unloaded beyond); east of x = 6
# a lake; north of z = -6 a cliff 6 blocks high; west of x = -10 a wood whose canopy
# (leaves at y 66-67) stands over walkable ground.
_SCRIPT = """
const { Vec3 } = require('vec3')
const { rankDirections } = require(process.argv[1])
const { visited } = JSON.parse(process.argv[2])
const blockAt = (p) => {
  if (Math.abs(p.x) > 60 || Math.abs(p.z) > 60) return null
  let name = 'air'
  if (p.y <= 62) name = 'stone'
  else if (p.y === 63) name = p.x > 6 ? 'water' : 'grass_block'
  else if (p.z < -6 && p.y <= 69) name = 'stone'
  else if (p.x < -10 && (p.y === 66 || p.y === 67)) name = 'oak_leaves'
  const empty = name === 'air' || name === 'water'
  return { name, position: p, boundingBox: empty ? 'empty' : 'block' }
}
const bot = { entity: { position: new Vec3(0.5, 64, 0.5) }, blockAt }
let seed = 7
const random = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
const ranked = rankDirections(bot, 48, random, visited)
console.log(JSON.stringify(ranked.map(l => ({ angle: l.angle, reach: l.reach, score: l.score }))))
"""


def _rank(visited: list[dict[str, float]] | None = None) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, str(BODY_DIR / "skills" / "explore.js"),
         json.dumps({"visited": visited or []})],
        capture_output=True, text=True, timeout=30, env=node_env(), cwd=str(BODY_DIR),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ranked: list[dict[str, Any]] = json.loads(done.stdout)
    return ranked


def test_lakes_and_cliffs_rank_last_and_open_land_first() -> None:
    ranked = _rank()
    assert len(ranked) == 16
    for d in ranked:
        east, north = math.cos(d["angle"]), math.sin(d["angle"]) < -0.5
        if east > 0.5 or north:  # into the lake or up the cliff
            assert d["score"] < 0, d
    best = ranked[:4]
    assert all(d["score"] > 0 and d["reach"] >= 24 for d in best), best
    # under the wood's canopy the ground is walkable: due west is open all the way
    west = min(ranked, key=lambda d: math.cos(d["angle"]))
    assert west["reach"] >= 45 and west["score"] > 0


def test_places_explored_before_rank_after_new_ones() -> None:
    ranked = _rank(visited=[{"x": -47.5, "z": 0.5}])
    best = ranked[0]
    # the best way leads away from the place explored to before (west): south
    assert math.sin(best["angle"]) > 0.5, best
