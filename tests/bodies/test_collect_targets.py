"""Which block ``collect`` digs next (issue 16), in a fake world: ``candidates`` and
``isTreeLog`` of ``bots/body/skills/collect.js``, run by Node with a fake bot.

The real-world check is ``test_bodies_items.py::test_collect_three_stone_logs_and_dirt_ten_times_each``.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from bots.node import node_executable
from bots.transport._host import BODY_DIR

# A fake bot over a block map {"x,y,z": name} (air elsewhere); prints the first candidates.
_SCRIPT = """
const { Vec3 } = require('vec3')
const { candidates, isTreeLog } = require(process.argv[1])
const { blocks, me, last, names } = JSON.parse(process.argv[2])
const SOLID_FREE = new Set(['air', 'wheat'])
const blockAt = (p) => {
  const name = blocks[`${p.x},${p.y},${p.z}`] || 'air'
  return { name, type: name, position: p, boundingBox: SOLID_FREE.has(name) ? 'empty' : 'block' }
}
const bot = {
  username: 'tester',
  entity: { position: new Vec3(...me) },
  blockAt,
  findBlocks: ({ matching, count }) => Object.keys(blocks)
    .map(k => new Vec3(...k.split(',').map(Number)))
    .filter(p => matching.includes(blockAt(p).name))
    .sort((a, b) => a.distanceTo(bot.entity.position) - b.distanceTo(bot.entity.position))
    .slice(0, count)
}
const found = candidates(bot, names, new Set(), last && new Vec3(...last))
const logs = Object.keys(blocks).filter(k => blocks[k].endsWith('_log'))
  .filter(k => isTreeLog(bot, new Vec3(...k.split(',').map(Number)), blocks[k]))
console.log(JSON.stringify({ first: found.slice(0, 3).map(p => [p.x, p.y, p.z]), tree_logs: logs }))
"""


def _choose(
    blocks: dict[str, str], me: list[float], names: list[str], last: list[int] | None = None
) -> dict[str, Any]:
    done = subprocess.run(
        [
            str(node_executable()),
            "-e",
            _SCRIPT,
            str(BODY_DIR / "skills" / "collect.js"),
            json.dumps({"blocks": blocks, "me": me, "last": last, "names": names}),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=BODY_DIR.parent,
        timeout=30,
    )
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _stone_hill(dug: list[tuple[int, int, int]]) -> dict[str, str]:
    """Flat stone from y 60 to 64 around x, z in -3..3, minus the dug blocks."""
    blocks = {
        f"{x},{y},{z}": "stone" for x in range(-3, 4) for z in range(-3, 4) for y in range(60, 65)
    }
    for x, y, z in dug:
        del blocks[f"{x},{y},{z}"]
    return blocks


def test_stone_is_not_dug_down_the_column_dug_last() -> None:
    # the body stands on the hill at y 65; it just dug the surface block (2, 64, 0): the block
    # under that hole is open now and near, but digging it starts a shaft whose drops fall
    # out of reach; a surface block beside the body comes first
    out = _choose(_stone_hill([(2, 64, 0)]), [0.5, 65, 0.5], ["stone"], last=[2, 64, 0])
    assert out["first"][0] != [2, 63, 0], out
    assert out["first"][0][1] == 64, out
    # the block under the body is never a target
    assert [0, 64, 0] not in out["first"], out


def test_a_trunk_is_dug_upwards_and_town_hall_posts_are_not_trees() -> None:
    blocks = _stone_hill([])
    # a tree at x 3 whose lowest log (y 65) was dug last: logs 66..68, leaves on top
    blocks.update({f"3,{y},0": "oak_log" for y in (66, 67, 68)})
    blocks["3,64,0"] = "grass_block"
    blocks["3,69,0"] = "oak_leaves"
    # a nearer tree, whole, at x -2
    blocks.update({f"-2,{y},0": "oak_log" for y in (65, 66, 67)})
    blocks["-2,64,0"] = "dirt"
    blocks["-2,68,0"] = "oak_leaves"
    # a corner post of a building: logs on planks under a plank roof, nearest of all
    blocks.update({f"0,{y},2": "oak_log" for y in (65, 66, 67)})
    blocks["0,64,2"] = "oak_planks"
    blocks["0,68,2"] = "oak_planks"
    out = _choose(blocks, [0.5, 65, 0.5], ["oak_log"], last=[3, 65, 0])
    assert out["first"][0] == [3, 66, 0], out  # the trunk dug on, upwards
    assert not any(p[0] == 0 and p[2] == 2 for p in out["first"]), out
    assert sorted(out["tree_logs"]) == sorted(
        [f"3,{y},0" for y in (66, 67, 68)] + [f"-2,{y},0" for y in (65, 66, 67)]
    )
    # without a trunk begun, the lowest log of the nearest tree
    fresh = _choose(blocks, [0.5, 65, 0.5], ["oak_log"])
    assert fresh["first"][0] == [-2, 65, 0], fresh


def test_a_tall_trunk_is_dug_on_from_where_the_body_stands() -> None:
    blocks = _stone_hill([])
    # a tall birch beside the body: its logs 65..67 were dug (air now), 68..70 stand above,
    # leaves on top; a whole short tree 6 blocks away
    blocks["1,64,0"] = "grass_block"
    blocks.update({f"1,{y},0": "birch_log" for y in (68, 69, 70)})
    blocks["1,71,0"] = "birch_leaves"
    blocks.update({f"-6,{y},0": "birch_log" for y in (65, 66, 67)})
    blocks["-6,64,0"] = "dirt"
    blocks["-6,68,0"] = "birch_leaves"
    # log 68 is 3 above the feet: within a player's reach (4.5 from the eyes) from here
    out = _choose(blocks, [0.5, 65, 0.5], ["birch_log"], last=[1, 67, 0])
    assert out["first"][0] == [1, 68, 0], out
    # log 70 (5 up) is still within reach from beside the trunk; it comes before walking
    del blocks["1,68,0"], blocks["1,69,0"]
    out = _choose(blocks, [0.5, 65, 0.5], ["birch_log"], last=[1, 69, 0])
    assert out["first"][0] == [1, 70, 0], out
    # seen from 4 blocks away the top of the trunk is out of reach: the other tree's lowest
    # log (a walk either way, on the ground) comes first
    far = _choose(blocks, [-3.5, 65, 0.5], ["birch_log"], last=[1, 69, 0])
    assert far["first"][0] == [-6, 65, 0], far
