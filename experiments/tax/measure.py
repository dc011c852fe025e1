"""Deposits per agent and season, measured by the experiment (never shown to an agent).

- :func:`attribute`: from the real contents (admin API): each item's chest gain is shared
  among the agents who lost that item, in proportion to (and at most) their loss;
- :func:`ledger`: the run's successful ``deposit`` skills in each season's window (a check);
- :func:`uncertain_deposits`: deposits that failed part-way (they may move items anyway) or
  were running while a snapshot was read.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

from experiments import metrics as M
from experiments.tax.roster import Member


class SeasonRecord(Protocol):
    @property
    def seasons(self) -> list[dict[str, Any]]: ...
    @property
    def members(self) -> Sequence[Member]: ...
    @property
    def measured_by(self) -> str: ...


def _season_at(t: float, seasons: list[dict[str, Any]]) -> dict[str, Any] | None:
    for s in seasons:
        if s["open_wall"] <= t <= s.get("measure_wall", s.get("close_wall", math.inf)):
            return s
    return None


def ledger(events: list[dict[str, Any]], seasons: list[dict[str, Any]]) -> dict[int, dict[str, int]]:
    """Season -> agent -> items deposited by successful deposit skills in its window."""
    out: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for e in events:
        call = e.get("call") or {}
        if e.get("type") != "skill_outcome" or not e.get("success") or call.get("skill") != "deposit":
            continue
        s = _season_at(float(e["t"]), seasons)
        if s is not None:
            delta = e.get("delta") or {}
            n = -sum(v for v in delta.values() if v < 0) or int(call.get("args", {}).get("count", 1))
            out[s["season"]][e["agent"]] += n
    return out


def _deposit_spans(events: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """(started, finished) wall times of every deposit skill (finished = inf if it never did);
    an agent runs one skill at a time, so its next outcome ends the deposit it started."""
    open_: dict[str, float] = {}
    spans = []
    for e in sorted(events, key=lambda e: float(e.get("t", 0.0))):
        kind, agent = e.get("type"), str(e.get("agent", ""))
        if kind == "skill_started":
            if agent in open_:  # started again without an outcome: the earlier one ended here
                spans.append((open_.pop(agent), float(e["t"])))
            if (e.get("call") or {}).get("skill") == "deposit":
                open_[agent] = float(e["t"])
        elif kind == "skill_outcome" and agent in open_:
            spans.append((open_.pop(agent), float(e["t"])))
    spans += [(t0, math.inf) for t0 in open_.values()]
    return spans


def uncertain_deposits(events: list[dict[str, Any]], seasons: list[dict[str, Any]]) -> Counter[int]:
    """Season -> deposits whose items the snapshots cannot pin down: those that failed part-way
    (cancelled, timed out, a rejected transaction: items may have moved although the skill
    reported a failure) and those still running when a snapshot of the season was taken
    (inventories and chests are read one after the other, so items in flight can be counted
    in a chest but not missed in any inventory)."""
    out: Counter[int] = Counter()
    for e in events:
        call = e.get("call") or {}
        if e.get("type") != "skill_outcome" or e.get("success") or call.get("skill") != "deposit":
            continue
        reason = str(e.get("reason", ""))
        if e.get("cancelled") or e.get("timed_out") or reason.startswith("deposit failed"):
            s = _season_at(float(e["t"]), seasons)
            if s is not None:
                out[s["season"]] += 1
    for t0, t1 in _deposit_spans(events):
        for s in seasons:
            snaps = [s.get("open_snapshot"), s.get("close_snapshot")]
            if any(t0 <= b and t1 >= a for a, b in (x for x in snaps if x)):
                out[s["season"]] += 1
    return out


def attribute(
    open_inv: dict[str, dict[str, int]], close_inv: dict[str, dict[str, int]],
    chest0: dict[str, int], chest1: dict[str, int],
) -> dict[str, float]:
    """Agent -> items deposited, measured from real contents: what each item's chest gain is,
    shared among the agents who lost that item, in proportion to (and at most) their loss."""
    out: dict[str, float] = defaultdict(float)
    for item in set(chest1) | set(chest0):
        gain = chest1.get(item, 0) - chest0.get(item, 0)
        if gain <= 0:
            continue
        drops = {a: max(0, inv.get(item, 0) - close_inv.get(a, {}).get(item, 0))
                 for a, inv in open_inv.items()}
        total = sum(drops.values())
        for a, d in drops.items():
            if total > 0 and d > 0:
                out[a] += min(float(d), gain * d / total)
    return out


def season_rows(run: SeasonRecord, events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per agent x season: inventory at opening/close, deposits measured from the chests and
    inventories (admin API) and from the ledger; per season: the totals and their check."""
    led = ledger(events, run.seasons)
    unsure = uncertain_deposits(events, run.seasons)
    rows, totals = [], []
    for s in run.seasons:
        k = s["season"]
        open_inv = s["open"]["inventory"]
        close = s.get("close", {"inventory": {}, "chest": None})
        c0, c1 = s["open"]["chest"], close.get("chest")
        measured = attribute(open_inv, close["inventory"], c0, c1) if (
            c0 is not None and c1 is not None) else None
        for m in run.members:
            inv0 = sum(open_inv.get(m.name, {}).values())
            inv1 = sum(close["inventory"].get(m.name, {}).values())
            by_ledger = led.get(k, {}).get(m.name, 0)
            dep = measured.get(m.name, 0.0) if measured is not None else float(by_ledger)
            rows.append({
                "season": k, "phase": s["phase"], "rate": s["rate"], "agent": m.name,
                "role": m.role, "inventory_open": inv0, "inventory_close": inv1,
                "deposited": round(dep, 3), "share": M.deposit_share(dep, inv0),
                "deposited_ledger": by_ledger, "share_ledger": M.deposit_share(by_ledger, inv0),
                "inventory_drop": max(0, inv0 - inv1),
                "measured_by": "chests+inventories" if measured is not None else run.measured_by,
            })
        ledger_total = sum(led.get(k, {}).values())
        chest_delta = None if measured is None else sum(c1.values()) - sum(c0.values())
        totals.append({
            "season": k, "phase": s["phase"], "rate": s["rate"], "ledger_total": ledger_total,
            "chest_delta": chest_delta,
            "attributed": None if measured is None else round(sum(measured.values()), 3),
            "uncertain_deposits": unsure.get(k, 0),
            "match": None if chest_delta is None else chest_delta == ledger_total,
        })
    return rows, totals
