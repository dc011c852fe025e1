"""Item progression records each first acquisition of a kind of item when it happens."""

from __future__ import annotations

from agent_runtime.clock import Clock
from experiments.item_progression.recompute import _steps
from experiments.item_progression.runner import Acquisitions


def test_acquisitions_from_skill_outcomes_pickups_and_reads() -> None:
    tl = Clock(time_scale=1.0)
    acq = Acquisitions(tl)
    acq.on_event({"type": "skill_outcome", "agent": "Ann", "call": {"skill": "craft"},
                  "delta": {"oak_planks": 4, "oak_log": -1}})
    acq.on_event({"type": "body_event", "agent": "Ann", "kind": "item_picked_up",
                  "data": {"item": "oak_log", "count": 1}})
    acq.on_event({"type": "body_event", "agent": "Bob", "kind": "item_picked_up",
                  "data": {"item": None}})  # an unnamed pickup is left to the inventory read
    acq.on_event({"type": "skill_outcome", "agent": "Ann", "call": {"skill": "craft"},
                  "delta": {"oak_planks": 4, "oak_log": -1}})  # nothing new
    acq.on_event({"type": "chat", "agent": "Ann", "delta": {"dirt": 1}})  # not an acquisition
    acq.add("Ann", ["oak_log", "stick"], "inventory_sample")
    rows = [(r["agent"], r["item"], r["source"], r["unique_cumulative"]) for r in acq.rows]
    assert rows == [("Ann", "oak_planks", "skill:craft", 1), ("Ann", "oak_log", "pickup", 2),
                    ("Ann", "stick", "inventory_sample", 3)]
    ts = [r["t"] for r in acq.rows]
    assert ts == sorted(ts) and all(t >= 0 for t in ts)


def test_step_curve_has_a_step_at_every_acquisition() -> None:
    steps = _steps(2, [30.0, 10.0, 20.0])
    assert steps == [{"t": 0.0, "mean": 0.0}, {"t": 10.0, "mean": 0.5},
                     {"t": 20.0, "mean": 1.0}, {"t": 30.0, "mean": 1.5}]
