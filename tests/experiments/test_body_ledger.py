"""The body ledger (experiments/ledger.py), the tax seasons' accounts (experiments/tax/accounts.py)
and the windows' fit to the world (experiments/reach.py) on synthetic events and files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.config.loader import parse_config
from experiments import ledger, reach
from experiments.files import write_csv, write_jsonl
from experiments.tax import accounts


def _out(reason: str = "", *, success: bool = False, failure: str | None = None,
         timed_out: bool = False, cancelled: bool = False) -> dict[str, Any]:
    return {"type": "skill_outcome", "success": success, "reason": reason, "failure": failure,
            "timed_out": timed_out, "cancelled": cancelled}


@pytest.mark.parametrize(("outcome", "kind"), [
    (_out("target out of reach: (-5, 65, -21) is not loaded"), "not_loaded"),
    (_out("timed out (while walking to the chest at (-5, 65, -21))", timed_out=True),
     "walk_timed_out"),
    (_out("timed out", timed_out=True), "timed_out_acting"),
    (_out("timed out while depositing", failure="timed_out"), "timed_out_acting"),
    (_out("no path to the chest at (1, 65, -21)", failure="target_out_of_reach"), "no_path"),
    (_out("no path to the chest at (-5, 65, -21): 51 blocks left",
          failure="target_out_of_reach"), "no_path"),
    (_out("target out of reach: the chest at (-5, 65, -21) is 136 blocks away (a skill walks "
          "to targets within 128 blocks; go_to nearer first)", failure="target_out_of_reach"),
     "too_far"),
    (_out("stuck: no step for 8 s on the way to the chest at (-5, 65, -21) (2 times got loose "
          "and planned again): 59 blocks left", failure="stuck"), "stuck"),
    (_out("the body stood still", failure="stuck"), "stuck"),
    (_out("I have no cobblestone", failure="item_missing"), "no_such_item"),
    (_out("the server refused the click", failure="server_refused"), "server_refused"),
    (_out("cancelled", cancelled=True), "cancelled"),
    (_out("body error: ConnectionError"), "body_error"),
    (_out("someone else dug it", failure="block_gone"), "taken_by_other"),
    (_out("something odd"), "other"),
])
def test_failure_kinds(outcome: dict[str, Any], kind: str) -> None:
    assert ledger.failure_kind(outcome) == kind


def _ev(t: float, kind: str, agent: str, skill: str, **kw: Any) -> dict[str, Any]:
    return {"t": t, "type": kind, "agent": agent, "call": {"skill": skill, "args": {}}, **kw}


EVENTS = [
    _ev(1.0, "skill_started", "a", "deposit"),
    _ev(2.0, "skill_outcome", "a", "deposit", success=False,
        reason="target out of reach: (1, 65, -21) is not loaded"),
    _ev(3.0, "skill_started", "a", "deposit"),
    _ev(9.0, "skill_outcome", "a", "deposit", success=True, delta={"wheat": -4}),
    _ev(4.0, "skill_started", "b", "smelt"),
    _ev(5.0, "skill_outcome", "b", "smelt", success=False, reason="cancelled", cancelled=True),
    _ev(6.0, "skill_started", "b", "collect"),  # still running at the end
    _ev(7.0, "skill_outcome", "c", "collect", success=True),  # its start is not in the file
]


def test_outcomes_pair_starts_with_their_outcomes() -> None:
    rows = ledger.outcomes(EVENTS)
    assert [(r["agent"], r["skill"], r["success"], r["kind"]) for r in rows] == [
        ("a", "deposit", False, "not_loaded"), ("a", "deposit", True, ""),
        ("b", "smelt", False, "cancelled"), ("b", "collect", None, "")]
    assert rows[1]["delta"] == {"wheat": -4} and rows[1]["ended"] == 9.0


def test_ledger_counts_per_phase_and_says_whose_failure(tmp_path: Path) -> None:
    rows = [{"condition": "c", "repeat": 0, **r} for r in ledger.skill_rows(EVENTS)]
    write_csv(tmp_path / "skills.csv", rows, ledger.SKILL_FIELDS)
    back = ledger.read_skills(tmp_path)
    assert [r["success"] for r in back] == [False, True, False, None]
    figs = ledger.figures(back, lambda c, r: (lambda t: "before" if t < 3.5 else "after"))
    by = {(f["phase"], f["skill"]): f for f in figs}
    dep = by[("before", "deposit")]
    assert (dep["started"], dep["succeeded"], dep["failed"], dep["failed_by_body"]) == (2, 1, 1, 1)
    assert dep["by_kind"] == {"not_loaded": 1}
    smelt = by[("after", "smelt")]
    assert smelt["failed"] == 1 and smelt["failed_by_body"] == 0  # cancelled: the agent's
    assert by[("after", "collect")]["unfinished"] == 1
    only_b = ledger.figures(back, None, lambda c, r: ["b"])
    assert {f["skill"] for f in only_b} == {"smelt", "collect"}
    assert {f["phase"] for f in only_b} == {"all"}
    assert "not_loaded 1" in ledger.table(figs)


def _tax_files(tmp_path: Path) -> Path:
    """One run, one season [100, 120] (wall), four constituents and one influencer."""
    write_jsonl(tmp_path / "timeline.jsonl", [
        {"condition": "x", "repeat": 0, "event": "season_open", "season": 0, "wall": 100.5,
         "open_wall": 100.0},
        {"condition": "x", "repeat": 0, "event": "season_close", "season": 0, "wall": 120.0},
        {"condition": "x", "repeat": 0, "event": "distribute", "wall": 200.0},
    ])
    dep = []
    for agent, inv, got, role in [("payer", 50, 10, "constituent"), ("less", 50, 3, "constituent"),
                                  ("idle", 50, 0, "constituent"), ("walker", 50, 0, "constituent"),
                                  ("quitter", 50, 0, "constituent"), ("empty", 0, 0, "constituent"),
                                  ("late", 50, 0, "constituent"),
                                  ("infl", 50, 0, "influencer")]:
        dep.append({"condition": "x", "repeat": 0, "season": 0, "phase": "before", "rate": 0.2,
                    "agent": agent, "role": role, "inventory_open": inv, "deposited": got,
                    "deposited_ledger": got})
    write_csv(tmp_path / "deposits.csv", dep,
              ["condition", "repeat", "season", "phase", "rate", "agent", "role",
               "inventory_open", "deposited", "deposited_ledger"])
    events = [
        _ev(101.0, "skill_started", "payer", "deposit"),
        _ev(105.0, "skill_outcome", "payer", "deposit", success=True, delta={"wheat": -10}),
        _ev(102.0, "skill_started", "less", "deposit"),
        _ev(104.0, "skill_outcome", "less", "deposit", success=True, delta={"wheat": -3}),
        _ev(90.0, "skill_started", "idle", "deposit"),  # before the window: not this season's
        _ev(95.0, "skill_outcome", "idle", "deposit", success=False, reason="timed out",
            timed_out=True),
        _ev(101.0, "skill_started", "walker", "deposit"),
        _ev(103.0, "skill_outcome", "walker", "deposit", success=False,
            reason="target out of reach: (1, 65, -21) is not loaded"),
        _ev(110.0, "skill_started", "walker", "deposit"),
        _ev(121.0, "skill_outcome", "walker", "deposit", success=False, timed_out=True,
            reason="timed out (while walking to the chest at (1, 65, -21))"),
        _ev(115.0, "skill_started", "late", "deposit"),  # arrives after the measurement
        _ev(130.0, "skill_outcome", "late", "deposit", success=True, delta={"wheat": -10}),
        _ev(111.0, "skill_started", "quitter", "deposit"),
        _ev(112.0, "skill_outcome", "quitter", "deposit", success=False, cancelled=True,
            reason="cancelled"),
    ]
    write_csv(tmp_path / "skills.csv",
              [{"condition": "x", "repeat": 0, **r} for r in ledger.skill_rows(events)],
              ledger.SKILL_FIELDS)
    return tmp_path


def test_every_constituent_season_is_accounted_for(tmp_path: Path) -> None:
    rows = accounts.seasons(_tax_files(tmp_path))
    got = {r["agent"]: (r["class"], r["reason"], r["started"]) for r in rows}
    assert got == {
        "payer": ("paid_full", "", 1), "less": ("paid_less", "", 1),
        "idle": ("decided_not", "", 0), "walker": ("tried_failed", "not_loaded", 2),
        "quitter": ("stopped", "cancelled", 1), "empty": ("nothing_to_pay", "", 0),
        "late": ("paid_late", "", 1),
    }  # the influencer is not counted
    f = accounts.figures(rows)["x"]["before"]
    assert f["seasons"] == 7 and sum(f["classes"].values()) == 7
    assert f["decided_to_pay"] == pytest.approx(5 / 6)
    assert f["paid"] == pytest.approx(2 / 6) and f["failed"] == pytest.approx(1 / 6)
    assert f["paid_late"] == pytest.approx(1 / 6)
    assert f["unpaid_by_body"] == pytest.approx(1 / 4)
    assert f["unpaid_by_decision"] == pytest.approx(2 / 4)
    assert f["unpaid_paid_late"] == pytest.approx(1 / 4)
    assert (f["deposits_started"], f["deposits_succeeded"]) == (6, 3)
    assert f["deposit_failures_by_kind"] == {"not_loaded": 1, "walk_timed_out": 1,
                                             "cancelled": 1}
    assert accounts.distributed_at(tmp_path) == {("x", 0): 200.0}


def test_paid_full_is_the_whole_items_the_rate_asks() -> None:
    row = {"inventory_open": "46", "rate": "0.2", "deposited": "9", "deposited_ledger": "9"}
    assert accounts.classify(row, [])[0] == "paid_full"  # 20% of 46 = 9.2: 9 whole items
    assert accounts.classify({**row, "deposited": "8", "deposited_ledger": "8"}, [])[0] == (
        "paid_less")
    assert accounts.classify({**row, "rate": "0.0", "deposited": "0",
                              "deposited_ledger": "0"}, [])[0] == "nothing_asked"


def _village(agents: list[dict[str, Any]]) -> Any:
    return parse_config({"agents": agents, "world": {"kind": "none"}}, "t")


def test_a_window_shorter_than_the_walk_does_not_fit() -> None:
    cfg = _village([{"name": "home"}, {"name": "far", "spawn_location": {"x": 90, "y": 65,
                                                                          "z": 0}}])
    chests = ((-5.0, -21.0), (1.0, -21.0))
    at_scale_1, at_scale_02 = reach.check([
        reach.Window("tax season", 20.0, chests), reach.Window("tax season", 4.0, chests)],
        _village([{"name": "home"}]))
    walk = (math.dist((0, 0), (-5, -21)) + 3 * math.sqrt(2)) / reach.WALK_BLOCKS_PER_S
    assert at_scale_1.fits and at_scale_1.walk_s == pytest.approx(walk + reach.ACT_S, abs=0.01)
    assert not at_scale_02.fits and "> the 4.0 s window" in at_scale_02.note
    far = reach.check([reach.Window("tax season", 20.0, chests)], cfg)[0]
    assert not far.fits and far.farthest_agent == "far"  # 95 blocks: ~21 s + 2 s
    vote = reach.check([reach.Window("vote", 0.0, (), note="no body action")], cfg)[0]
    assert vote.fits and vote.note == "no body action"
    assert json.dumps(far.as_row())
