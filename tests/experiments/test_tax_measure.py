"""The tax experiment's measurement of deposits (the experiment's side, never an agent's)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from experiments.metrics import deposit_share
from experiments.tax.measure import attribute, ledger, season_rows, uncertain_deposits
from experiments.tax.roster import Member


def test_ledger_matches_chests_and_shares() -> None:
    seasons = [
        {"season": 0, "phase": "before", "rate": 0.2, "open_wall": 100.0, "close_wall": 120.0,
         "measure_wall": 123.0,
         "open": {"inventory": {"A": {"wheat": 40, "bread": 10}, "B": {"coal": 10}},
                  "chest": {"dirt": 1}},
         "close": {"inventory": {"A": {"wheat": 30, "bread": 10}, "B": {"coal": 10}},
                   "chest": {"dirt": 1, "wheat": 10}}},
    ]
    events = [
        {"type": "skill_outcome", "agent": "A", "t": 105.0, "success": True,
         "call": {"skill": "deposit", "args": {"item": "wheat", "count": 10}},
         "delta": {"wheat": -10}},
        {"type": "skill_outcome", "agent": "B", "t": 106.0, "success": False,
         "call": {"skill": "deposit", "args": {"item": "coal", "count": 2}}, "delta": {}},
        {"type": "skill_outcome", "agent": "B", "t": 130.0, "success": True,  # after the window
         "call": {"skill": "deposit", "args": {"item": "coal", "count": 2}},
         "delta": {"coal": -2}},
    ]
    led = ledger(events, seasons)
    assert dict(led[0]) == {"A": 10}
    run = SimpleNamespace(
        seasons=seasons, measured_by="admin_api",
        members=[Member("A", "constituent", "farmer", ()), Member("B", "constituent", "miner", ())],
    )
    rows, totals = season_rows(run, events)
    a = next(r for r in rows if r["agent"] == "A")
    assert a["deposited"] == 10 and a["share"] == pytest.approx(deposit_share(10, 50)) == 0.2
    assert a["deposited_ledger"] == 10 and a["inventory_drop"] == 10
    assert a["measured_by"] == "chests+inventories"
    b = next(r for r in rows if r["agent"] == "B")
    assert b["deposited"] == 0 and b["share"] == 0.0
    assert totals == [{"season": 0, "phase": "before", "rate": 0.2, "ledger_total": 10,
                       "chest_delta": 10, "attributed": 10, "uncertain_deposits": 0,
                       "match": True}]


def test_contents_attribution_catches_unreported_deposits() -> None:
    # B's deposit failed part-way ("rejected transaction") but 6 coal reached the chest,
    # and A lost 4 wheat of which only 2 reached the chest (2 were eaten or dropped)
    open_inv = {"A": {"wheat": 10}, "B": {"coal": 10}, "C": {"coal": 3}}
    close_inv = {"A": {"wheat": 6}, "B": {"coal": 4}, "C": {"coal": 3}}
    got = attribute(open_inv, close_inv, {"coal": 1}, {"coal": 7, "wheat": 2})
    assert got == {"A": 2.0, "B": 6.0}
    seasons = [{"season": 0, "open_wall": 0.0, "measure_wall": 10.0}]
    events = [{"type": "skill_outcome", "agent": "B", "t": 5.0, "success": False,
               "reason": "deposit failed: Server rejected transaction", "cancelled": False,
               "call": {"skill": "deposit", "args": {"item": "coal", "count": 6}}},
              {"type": "skill_outcome", "agent": "B", "t": 6.0, "success": False,
               "reason": "no chest within 32 blocks", "call": {"skill": "deposit"}}]
    assert uncertain_deposits(events, seasons) == {0: 1}
    assert dict(ledger(events, seasons)) == {}


def test_commitment_counts_cancellations_per_agent_hour() -> None:
    from experiments.metrics import commitment

    events: list[dict[str, Any]] = [
        {"type": "decision_cancelled", "reason": "new request"},
        {"type": "decision_cancelled", "reason": "danger"},
        {"type": "skill_started", "call": {"skill": "deposit"}},
        {"type": "skill_started", "call": {"skill": "deposit"}},
        {"type": "skill_outcome", "success": True, "call": {"skill": "deposit"}},
        {"type": "skill_outcome", "success": False, "cancelled": True, "call": {"skill": "deposit"}},
        {"type": "skill_outcome", "success": False, "cancelled": True, "call": {"skill": "mine"}},
    ]
    c = commitment(events, agents=2, wall_s=1800.0)
    assert c["agent_hours"] == 1.0 and c["decisions_cancelled_per_agent_hour"] == 2.0
    assert c["cancelled_by_reason"] == {"new request": 1, "danger": 1}
    assert c["skills_cancelled"] == 2
    assert c["deposits"] == {"started": 2, "succeeded": 1, "failed": 0, "cancelled": 1}


def test_deposits_in_flight_at_a_snapshot_are_uncertain() -> None:
    seasons = [{"season": 0, "open_wall": 10.0, "measure_wall": 31.0,
                "open_snapshot": (9.0, 10.0), "close_snapshot": (30.0, 31.0)}]
    events: list[dict[str, Any]] = [
        # A deposits well inside the window: certain
        {"type": "skill_started", "agent": "A", "t": 12.0, "call": {"skill": "deposit"}},
        {"type": "skill_outcome", "agent": "A", "t": 13.0, "success": True,
         "call": {"skill": "deposit"}},
        # B's deposit is still running while the close snapshot is read
        {"type": "skill_started", "agent": "B", "t": 29.5, "call": {"skill": "deposit"}},
        {"type": "skill_outcome", "agent": "B", "t": 30.5, "success": True,
         "call": {"skill": "deposit"}},
        # C started one before the opening and never reported
        {"type": "skill_started", "agent": "C", "t": 8.0, "call": {"skill": "deposit"}},
    ]
    assert uncertain_deposits(events, seasons) == {0: 2}
