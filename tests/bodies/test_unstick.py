"""A walk that stands still gets loose (step back with a jump, plan again) before it fails
(``walk`` of ``bots/body/lib/move.js``, run by Node with a fake bot and pathfinder).

mineflayer-pathfinder now and then presses a body against the side of a block and never
gets it up; the walk then failed at once as "stuck: no step for 8 s" (a fresh-clone CI run:
``test_craft_contract``'s walk from the spawn to the forest).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from bots.node import node_env, node_executable
from bots.transport._host import BODY_DIR

# goto() never finishes (a body pressed against a block) for the first ``hang`` plans,
# then walks to the goal at once.
_SCRIPT = """
const { Vec3 } = require('vec3')
const { walk, stats } = require(process.argv[1])
const { hang } = JSON.parse(process.argv[2])
let plans = 0
const controls = []
const bot = {
  entity: { position: new Vec3(0.5, 64, 0.5), onGround: true, isInWater: false },
  targetDigBlock: null,
  pathfinder: {
    goto () {
      plans++
      if (plans <= hang) return new Promise(() => {})
      bot.entity.position = new Vec3(10.5, 64, 0.5)
      return Promise.resolve()
    },
    setGoal () {}
  },
  clearControlStates () {},
  setControlState (k, v) { if (v) controls.push(k) },
  once (ev, cb) { setImmediate(cb) }
}
const ctx = { bot, signal: new AbortController().signal, random: () => 0.25, check () {} }
const goal = { isEnd: (p) => p.x === 10 }
const aborted = new Promise(() => {})
walk(ctx, goal, 'the goal', aborted, 300).then(
  () => ({ ok: true }),
  (err) => ({ ok: false, kind: err.kind, reason: err.reason })
).then((r) => {
  console.log(JSON.stringify({ ...r, plans, controls, unstuck: stats(bot).unstuck }))
  process.exit(0)
})
"""


def _walk(hang: int) -> dict[str, Any]:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, str(BODY_DIR / "lib" / "move.js"),
         json.dumps({"hang": hang})],
        capture_output=True, text=True, timeout=30, env=node_env(), cwd=str(BODY_DIR),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_walk_that_stands_still_steps_back_and_plans_again() -> None:
    r = _walk(hang=1)
    assert r["ok"], r
    assert r["plans"] == 2 and r["unstuck"] == 1
    assert {"back", "jump", "left"} <= set(r["controls"])


def test_a_walk_stuck_three_times_fails_as_stuck_and_says_so() -> None:
    r = _walk(hang=10)
    assert not r["ok"]
    assert r["kind"] == "stuck"
    assert r["reason"].startswith("stuck: no step for 0.3 s on the way to the goal")
    assert "2 times got loose" in r["reason"]
    assert r["plans"] == 3 and r["unstuck"] == 2
