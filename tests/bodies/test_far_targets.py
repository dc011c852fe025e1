"""Skills go where their target is (issue 29).

In the tax experiment 235 of 478 deposits failed at once with "target out of reach: (x, 65,
-21) is not loaded": the town-hall chest lay outside the chunks the body had, and the skill
failed instead of walking there; 151 more timed out on the walk. Here a body stands 112 blocks
north of a community chest (the server sends 6 chunks around a player: the chest's chunk is
not loaded) and deposits into it; a walk that cannot finish says why and how far it still was.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from agent_runtime.world import SKILL_TIMEOUTS, WALK_BLOCKS_PER_S, Observation, SkillOutcome
from bots.admin import AdminClient
from bots.node import node_env, node_executable
from bots.server_host import EmbeddedServer
from bots.transport import BODY_DIR, JSPyBridgeTransport, MineflayerBody

from .conftest import connect, give, run, wait_until

pytestmark = [pytest.mark.minecraft]

# The skill runner with a fake bot at (0, 64, 0) and a skill that walks towards (0, 64, 100)
# until the runner ends it: by its time limit, then by its stuck detector.
RUNNER_JS = """
const path = require('path')
const BODY = process.argv[1]
const { Vec3 } = require(path.resolve(BODY, '../node_modules/vec3'))
const { SKILLS } = require(path.join(BODY, 'skills'))
const { SkillRunner } = require(path.join(BODY, 'plugins/runner'))
const { sleep } = require(path.join(BODY, 'lib/util'))
SKILLS.__walk = { name: '__walk', args: {}, run: async (ctx) => {
  ctx.walking = { what: 'the chest at (0, 64, 100)', pos: { x: 0, y: 64, z: 100 } }
  await sleep(60000, ctx.signal)
} }
const bot = { entity: { position: new Vec3(0, 64, 0) }, inventory: { slots: [] }, clearControlStates () {} }
const body = { bot, connected: true, random: Math.random }
const outcomes = {}
const report = (id, o) => { outcomes[id] = o; if (Object.keys(outcomes).length === 2) done() }
const runner = new SkillRunner(body, report, { stuckMs: 1000 })
const done = () => process.stdout.write(JSON.stringify(outcomes) + '\\n')
runner.start('timeout', '__walk', {}, 300)
setTimeout(() => runner.start('stuck', '__walk', {}, 10000), 600)
"""


def test_a_walk_the_runner_ends_says_where_it_went_and_how_far_it_still_was() -> None:
    done = subprocess.run(
        [str(node_executable()), "-e", RUNNER_JS, str(BODY_DIR)],
        capture_output=True,
        text=True,
        timeout=30,
        env=node_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = {k: SkillOutcome.model_validate(v) for k, v in json.loads(done.stdout).items()}
    late, stuck = got["timeout"], got["stuck"]
    assert late.timed_out and late.failure == "timed_out"
    assert late.reason == "timed out walking to the chest at (0, 64, 100): 100 blocks left"
    target = {"x": 0, "y": 64, "z": 100}
    assert late.detail["walk"] == {"outcome": "timed_out", "blocks_left": 100, "target": target}
    assert stuck.failure == "stuck"
    assert stuck.reason == (
        "stuck: no progress for 1 s walking to the chest at (0, 64, 100): 100 blocks left"
    )
    assert stuck.detail["walk"]["outcome"] == "blocked"


AWAY = 112  # blocks north of the chest: 7 chunks, beyond the server's view distance (6)
BOX_UP = 4  # the walled-in body's feet: this far above the ground it landed on
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


async def _drop_at(admin: AdminClient, body: MineflayerBody, x: float, z: float) -> Observation:
    """Teleport ``body`` above (x, z) and wait until it stands on the ground there."""
    seen: list[object] = []

    async def landed() -> Observation | None:
        if len(seen) % 50 == 0:  # again every 5 s: a teleport right after a join may be lost
            await admin.teleport(body.name, x, 110, z)
        obs = await body.observe()
        p = obs.position
        seen.append(p)
        # (a body whose chunk has not arrived hangs where it was put: no physics there)
        ok = p is not None and abs(p.x - x) < 4 and abs(p.z - z) < 4 and p.y < 109
        return obs if ok else None

    try:
        # the wild's chunks are generated when first asked for: slow on a busy machine
        obs = await wait_until(landed, within=120, what=f"{body.name} on the ground near {x, z}")
    except AssertionError as err:
        raise AssertionError(f"{err} (last seen at {seen[-1:]})") from None
    # standing on the ground: the same height in two snapshots (not still falling)
    last = [obs.position.y if obs.position is not None else 0.0]

    async def still() -> Observation | None:
        now = await body.observe()
        y = now.position.y if now.position is not None else 0.0
        was, last[0] = last[0], y
        return now if abs(y - was) < 0.01 else None

    return await wait_until(still, within=20, what=f"{body.name} standing still")


@pytest.mark.timeout(420)
@pytest.mark.asyncio(loop_scope="module")
async def test_a_deposit_walks_to_a_chest_outside_the_loaded_chunks(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    x, y, z = server.community_chests[0]
    body = await connect(transport, server, "payer")
    await give(admin, body, "wheat", 5)
    start = await _drop_at(admin, body, x + 0.5, z - AWAY + 0.5)
    assert start.position is not None
    away = round(((start.position.x - x) ** 2 + (start.position.z - z) ** 2) ** 0.5)
    assert 100 <= away <= 128, away
    # the limit skill execution gives a deposit this far (modules/skill_execution.py)
    limit = SKILL_TIMEOUTS["deposit"] + away / WALK_BLOCKS_PER_S
    at = {"x": float(x), "y": float(y), "z": float(z)}
    paid = await run(body, "deposit", limit=limit, item="wheat", count=5, **at)
    assert paid.success, paid.reason
    assert paid.inventory_delta.get("wheat") == -5
    assert paid.detail["chest"] == {"x": x, "y": y, "z": z}
    stored = await admin.chest(x, y, z)
    assert sum(s["count"] for s in stored if s["name"] == "wheat") == 5, stored

    # the same walk with too little time: it says where it was going and how far it still was
    await give(admin, body, "wheat", 1)
    await _drop_at(admin, body, x + 0.5, z - AWAY + 0.5)
    late = await run(body, "deposit", limit=5.0, item="wheat", count=1, **at)
    assert not late.success and late.failure == "timed_out" and late.timed_out
    where = f"the chest at ({x}, {y}, {z})"
    left = late.detail["walk"]["blocks_left"]
    assert late.reason == f"timed out walking to {where}: {left} blocks left", late.reason
    assert late.detail["walk"]["outcome"] == "timed_out"
    assert AWAY - 40 < left <= AWAY + 2, late.detail


@pytest.mark.timeout(300)
@pytest.mark.asyncio(loop_scope="module")
async def test_a_walk_that_cannot_start_says_no_path_and_the_distance_left(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    """A body walled in by bedrock (nothing to dig through) asked to deposit into a chest 112
    blocks away: not "is not loaded" but no path, typed, with the blocks left."""
    x, y, z = server.community_chests[1]
    body = await connect(transport, server, "boxed")
    await give(admin, body, "wheat", 1)
    obs = await _drop_at(admin, body, x + 0.5 - 8, z - AWAY + 0.5)
    assert obs.position is not None
    # a one-block cell of bedrock a little above where it landed (its chunk is loaded)
    fx, fz = int(obs.position.x // 1), int(obs.position.z // 1)
    fy = round(obs.position.y) + BOX_UP
    cells = [(fx, fy - 1, fz), (fx, fy + 2, fz)]
    cells += [(fx + dx, fy + dy, fz + dz) for dx, dz in SIDES for dy in (0, 1)]
    for cx, cy, cz in cells:
        await admin.command(f"/setblock {cx} {cy} {cz} bedrock")
    for dy in (0, 1):
        await admin.command(f"/setblock {fx} {fy + dy} {fz} air")
    await admin.teleport(body.name, fx + 0.5, fy, fz + 0.5)

    async def boxed() -> bool:
        p = (await body.observe()).position
        return p is not None and abs(p.y - fy) < 0.01 and abs(p.x - (fx + 0.5)) < 0.5

    await wait_until(boxed, within=20, what=f"{body.name} in the bedrock cell")
    stuck = await run(
        body, "deposit", limit=60.0, item="wheat", count=1, x=float(x), y=float(y), z=float(z)
    )
    assert not stuck.success
    assert stuck.failure == "target_out_of_reach", stuck
    walk = stuck.detail["walk"]
    assert walk["outcome"] == "no_path"
    assert 100 <= walk["blocks_left"] <= 128, walk
    assert stuck.reason.endswith(f": {walk['blocks_left']} blocks left"), stuck.reason
    assert "not loaded" not in stuck.reason
