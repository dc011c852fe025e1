"""Which agents count as unresponsive (agent_runtime/run/responsiveness.py)."""

from __future__ import annotations

from agent_runtime.run.responsiveness import CONTROLLER, Responsiveness


def test_a_decision_published_while_a_step_waits_for_the_model_counts() -> None:
    r = Responsiveness()
    steps = {("Ann", CONTROLLER): 100.0, ("Bob", CONTROLLER): 100.0}
    # Ann's step has waited 40 s for a slow model, but a reflex decision went out 5 s ago
    r({"agent": "Ann", "type": "decision", "t": 135.0})
    r({"agent": "Ann", "type": "skill_started", "t": 135.0})
    r({"agent": "Bob", "type": "skill_started", "t": 135.0})
    got = r.unresponsive(["Ann", "Bob"], steps, now=140.0, started=0.0, bodies=True)
    assert got == {"Bob": "no controller step for 40s"}


def test_a_body_that_does_nothing_for_two_minutes_counts() -> None:
    r = Responsiveness()
    r({"agent": "Ann", "type": "skill_outcome", "t": 10.0})
    steps = {("Ann", CONTROLLER): 139.0}
    assert r.unresponsive(["Ann"], steps, now=140.0, started=0.0, bodies=True) == {
        "Ann": "no skill started or ended for 130s"
    }
    assert r.unresponsive(["Ann"], steps, now=140.0, started=0.0, bodies=False) == {}
