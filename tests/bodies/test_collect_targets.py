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
const { candidates, isTreeLog, trunkFoot, rivalAt } = require(process.argv[1])
const path = require('path')
const { GoalBesideTrunk } = require(path.join(path.dirname(process.argv[1]), '..', 'lib', 'move.js'))
const { blocks, me, last, names, username, others } = JSON.parse(process.argv[2])
const SOLID_FREE = new Set(['air', 'wheat'])
const blockAt = (p) => {
  const name = blocks[`${p.x},${p.y},${p.z}`] || 'air'
  return { name, type: name, position: p, boundingBox: SOLID_FREE.has(name) ? 'empty' : 'block' }
}
const entity = { type: 'player', username: username || 'tester', position: new Vec3(...me) }
const entities = { 0: entity }
for (const [i, o] of (others || []).entries()) {
  entities[i + 1] = { type: 'player', username: o.username, position: new Vec3(...o.position) }
}
const bot = {
  username: entity.username,
  entity,
  entities,
  blockAt,
  lightBlockAt: blockAt,
  findBlocks: ({ matching, count }) => Object.keys(blocks)
    .map(k => new Vec3(...k.split(',').map(Number)))
    .filter(p => matching.includes(blockAt(p).name))
    .sort((a, b) => a.distanceTo(bot.entity.position) - b.distanceTo(bot.entity.position))
    .slice(0, count)
}
const found = candidates(bot, names, new Set(), last && new Vec3(...last))
const logs = Object.keys(blocks).filter(k => blocks[k].endsWith('_log'))
  .filter(k => isTreeLog(bot, new Vec3(...k.split(',').map(Number)), blocks[k]))
const feet = Object.keys(blocks).filter(k => blocks[k].endsWith('_log'))
  .map(k => [k, trunkFoot(bot, new Vec3(...k.split(',').map(Number)))])
const at = (p) => new Vec3(...p)
const beside = (log, foot, node) => new GoalBesideTrunk(at(log), foot).isEnd(at(node))
const rival = last ? rivalAt(bot, at(last)) : null
console.log(JSON.stringify({
  first: found.slice(0, 3).map(p => [p.x, p.y, p.z]),
  tree_logs: logs,
  feet: Object.fromEntries(feet),
  beside: [
    beside([0, 65, 0], 65, [1, 65, 0]), beside([0, 65, 0], 65, [0, 66, -1]),
    beside([0, 68, 0], 65, [0, 65, 1]), beside([0, 65, 0], 65, [1, 65, 1]),
    beside([0, 65, 0], 65, [2, 65, 0]), beside([0, 65, 0], 65, [1, 63, 0]),
    beside([0, 72, 0], 65, [1, 65, 0])
  ],
  rival
}))
"""


def _choose(
    blocks: dict[str, str],
    me: list[float],
    names: list[str],
    last: list[int] | None = None,
    username: str = "tester",
    others: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    done = subprocess.run(
        [
            str(node_executable()),
            "-e",
            _SCRIPT,
            str(BODY_DIR / "skills" / "collect.js"),
            json.dumps(
                {
                    "blocks": blocks,
                    "me": me,
                    "last": last,
                    "names": names,
                    "username": username,
                    "others": others or [],
                }
            ),
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


def _grove() -> dict[str, str]:
    """Flat dirt at y 64; five whole oaks (logs 65..68, leaves on top) at 4, 5, 6, 7 and 8
    blocks east of x 0 along z 0 / 3 / -3 (distinct columns, distinct distances)."""
    blocks = {f"{x},64,{z}": "dirt" for x in range(-2, 12) for z in range(-5, 6)}
    for x, z in ((4, 0), (5, 3), (6, -3), (7, 2), (8, -1)):
        blocks.update({f"{x},{y},{z}": "oak_log" for y in (65, 66, 67, 68)})
        blocks[f"{x},69,{z}"] = "oak_leaves"
    return blocks


def test_bodies_side_by_side_each_take_their_own_tree() -> None:
    grove = _grove()
    names = ["bsk3", "bsk1", "bsk2"]
    firsts = []
    for name in names:
        others = [{"username": n, "position": [0.5, 65, 0.5]} for n in names if n != name]
        out = _choose(grove, [0.5, 65, 0.5], ["oak_log"], username=name, others=others)
        firsts.append((name, out["first"][0]))
    # ordered by name, the i-th takes the i-th nearest tree, its lowest log
    assert sorted(firsts) == [("bsk1", [4, 65, 0]), ("bsk2", [5, 65, 3]), ("bsk3", [6, 65, -3])]
    # alone: the nearest tree (no other player within the group's 2.5 blocks)
    far = [{"username": "bsk1", "position": [0.5, 65, -9.5]}]
    alone = _choose(grove, [0.5, 65, 0.5], ["oak_log"], username="bsk2", others=far)
    assert alone["first"][0] == [4, 65, 0], alone


def test_a_player_a_hair_nearer_does_not_take_every_tree() -> None:
    # bodies side by side see each other a few hundredths of a block off: that is not
    # "nearer" (each would cede the nearest trees to the other); a step nearer is
    grove = _grove()
    hair = [{"username": "zed", "position": [5.5, 65, 0.5]}]
    out = _choose(grove, [5.55, 65, 0.5], ["oak_log"], username="bsk1", others=hair)
    assert out["first"][0] == [4, 65, 0], out
    nearer = [{"username": "zed", "position": [4.5, 65, 0.5]}]
    out = _choose(grove, [7.5, 65, 0.5], ["oak_log"], username="bsk1", others=nearer)
    assert out["first"][0] != [4, 65, 0], out


def test_trunk_foot_and_the_spot_beside_the_trunk() -> None:
    blocks = _grove()
    del blocks["4,65,0"]  # the lowest log of one tree dug: the foot is the air above the dirt
    blocks.update({f"0,{y},4": "oak_log" for y in (65, 66)})  # a post on planks
    blocks["0,64,4"] = "oak_planks"
    blocks["0,67,4"] = "oak_leaves"
    out = _choose(blocks, [0.5, 65, 0.5], ["oak_log"])
    assert out["feet"]["4,66,0"] == 65 and out["feet"]["5,65,3"] == 65, out["feet"]
    assert out["feet"]["0,65,4"] is None, out["feet"]
    # beside: a side of the column, about level with the foot, within reach; not a corner,
    # not two blocks off, not two below the foot, not a log out of reach above
    assert out["beside"] == [True, True, True, False, False, False, False], out["beside"]


def test_the_later_name_leaves_a_tree_to_a_rival_beside_it() -> None:
    grove = _grove()
    at_tree = [{"username": "bsk1", "position": [3.5, 65, 0.5]}]
    mine = _choose(grove, [4.5, 65, 1.5], ["oak_log"], [4, 65, 0], "bsk2", at_tree)
    assert mine["rival"] is True
    theirs = _choose(grove, [4.5, 65, 1.5], ["oak_log"], [4, 65, 0], "bsk0", at_tree)
    assert theirs["rival"] is False
    away = [{"username": "bsk1", "position": [0.5, 65, 0.5]}]
    assert _choose(grove, [4.5, 65, 1.5], ["oak_log"], [4, 65, 0], "bsk2", away)["rival"] is False


# A real prismarine world (block shapes, ray casts) over a block map; prints, per target,
# whether some place to stand within reach sees it (``spotInReach`` of ``lib/move.js``).
_REACH_SCRIPT = """
const { Vec3 } = require('vec3')
const { GoalReachBlock, spotInReach } = require(process.argv[1])
const registry = require('prismarine-registry')('1.16.5')
const Chunk = require('prismarine-chunk')(registry)
const World = require('prismarine-world')(registry)
const { blocks, me, targets } = JSON.parse(process.argv[2])
const world = new World(null).sync
for (const cx of [-1, 0]) for (const cz of [-1, 0]) world.setColumn(cx, cz, new Chunk(), false)
for (const [k, name] of Object.entries(blocks)) {
  world.setBlockType(new Vec3(...k.split(',').map(Number)), registry.blocksByName[name].id)
}
const bot = { entity: { position: new Vec3(...me) }, blockAt: (p) => world.getBlock(p) }
console.log(JSON.stringify(targets.map(t => spotInReach(bot, new GoalReachBlock(new Vec3(...t), world, 3)))))
"""


def _spot_in_reach(blocks: dict[str, str], me: list[float], targets: list[list[int]]) -> list[bool]:
    done = subprocess.run(
        [
            str(node_executable()),
            "-e",
            _REACH_SCRIPT,
            str(BODY_DIR / "lib" / "move.js"),
            json.dumps({"blocks": blocks, "me": me, "targets": targets}),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=BODY_DIR.parent,
        timeout=30,
    )
    out: list[bool] = json.loads(done.stdout)
    return out


def test_a_block_whose_open_face_no_place_to_stand_sees_is_known_unreachable() -> None:
    # stone from y 60 to 64 (bodies stand at y 65); a one-high pocket at (3, 63, 0), walled
    # in stone: the block beside it, (2, 63, 0), is open (to the pocket), but no place to
    # stand sees that face, so collect leaves it without planning (at the hills such a stone
    # cost 8 s of A* in every round)
    hill = _stone_hill([(3, 63, 0)])
    hill.update(
        {f"{x},{y},{z}": "stone" for x in range(4, 6) for z in range(-1, 2) for y in (62, 63, 64)}
    )
    me = [0.5, 65, 0.5]
    pocketed, surface, below_surface, far_surface = [2, 63, 0], [1, 64, 1], [0, 63, 0], [-3, 64, -3]
    assert _spot_in_reach(hill, me, [pocketed, surface, below_surface, far_surface]) == [
        False,  # open only to the pocket
        True,  # the top face, from where the body stands
        False,  # buried (no open face at all): nothing sees it either
        True,  # the top face, from a place to stand near it (not from here)
    ]
    # the block above it dug: its top face is seen (from the hole it opened)
    del hill["2,64,0"]
    assert _spot_in_reach(hill, me, [pocketed]) == [True]
