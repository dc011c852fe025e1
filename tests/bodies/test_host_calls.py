"""The body host answers every call at once; what needs a body worker comes back later
through the event sink (``bots/body/host.js``, run by Node with fake workers).

With a reply per call from the worker, JSPyBridge's one call thread waited for 25 walking
bots' event loop on every skill start and observation: in a 50-agent culture run the calls
made 2-5 round trips a second and perception missed 950 observations in 10 minutes.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from bots.node import node_env, node_executable
from bots.transport._host import BODY_DIR

_SCRIPT = """
const { BodyHost } = require(process.argv[1])
const sent = []
const host = new BodyHost({}, (batch) => { sent.push(...JSON.parse(batch)); return Promise.resolve() })
// a worker that never answers, and one that has exited
host.botShard.set('Hang', { call: () => new Promise(() => {}) })
host.botShard.set('Gone', { call: () => Promise.reject(new Error('body worker exited')) })
const t0 = Date.now()
const replies = {
  hang: host.runSkill('Hang', 'Hang-1', 'idle', '{}', 1000),
  gone: host.runSkill('Gone', 'Gone-1', 'idle', '{}', 1000),
  nobody: host.runSkill('Nobody', 'Nobody-1', 'idle', '{}', 1000),
  cancel: host.cancelSkill('Hang', 'test'),
  observe: host.observeMany(7, JSON.stringify(['Gone', 'Nobody']))
}
const ms = Date.now() - t0
setTimeout(() => {
  process.stdout.write(JSON.stringify({ replies, ms, sent }) + '\\n')
  process.exit(0)
}, 200)
"""


def _host_run() -> dict[str, Any]:
    done = subprocess.run(
        [str(node_executable()), "-e", _SCRIPT, str(BODY_DIR / "host.js")],
        capture_output=True, text=True, timeout=30, env=node_env(), cwd=str(BODY_DIR),
        stdin=subprocess.PIPE, check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_calls_return_at_once_and_failures_come_back_as_outcomes() -> None:
    r = _host_run()
    replies = r["replies"]
    assert replies["hang"] == "started"  # not waiting for a worker that never answers
    assert replies["gone"] == "started"
    assert replies["nobody"].startswith('error: no body "Nobody"')
    assert replies["cancel"] == "true"
    assert replies["observe"] == "started"
    assert r["ms"] < 50

    outcomes = [m for m in r["sent"] if m["type"] == "outcome"]
    assert [(o["bot"], o["call_id"]) for o in outcomes] == [("Gone", "Gone-1")]
    gone = outcomes[0]["outcome"]
    assert gone["success"] is False and gone["failure"] == "disconnected"
    assert gone["reason"] == "body unavailable: body worker exited"

    (obs,) = [m for m in r["sent"] if m["type"] == "observations"]
    assert obs["ticket"] == 7
    assert obs["data"] == {
        "Gone": {"error": "body worker exited"},
        "Nobody": {"error": 'no body "Nobody"'},
    }
