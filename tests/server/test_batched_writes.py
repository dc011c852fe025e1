"""The server's batched writes: a turn's packets to a player leave in a few system calls,
every one of them, in order (bots/server/plugins/batched_writes.js, issue 31)."""

from __future__ import annotations

from tests.server.conftest import run_js


def test_a_turns_packets_leave_together_all_and_in_order() -> None:
    n = 2000
    out = run_js("batched_writes_check.js", n)
    for side in ("without_plugin", "with_plugin"):
        assert out[side]["received"] == n
        assert out[side]["in_order"] is True
    # without the plugin every packet is a write of its own: the check can see the difference
    assert out["without_plugin"]["writes"] >= n
    # ~60 KB of chat in one turn: one write per 64 KB gathered, and the turn's rest
    assert out["with_plugin"]["writes"] <= 3
