"""Every constituent-season of a tax run accounted for: paid, decided not to pay, or tried and
failed (and why), from the raw files only (scoring side; no agent reads this).

- ``deposits.csv``: per agent and season the inventory at the opening, the items deposited as
  measured from chests and inventories, and by the ledger of successful deposit skills;
- ``timeline.jsonl``: each season's window in wall time (``season_open``'s ``open_wall``,
  ``season_close``'s ``wall``) and the distribution (the phases' border);
- ``skills.csv``: every skill started and how it ended (:mod:`experiments.ledger`).

A season is ``paid_full`` when the constituent deposited at least the whole items the rate
asked of its inventory (``floor(rate x inventory)``, at least one), ``paid_less`` when it
deposited something less; otherwise ``decided_not`` when it started no deposit in the window,
``paid_late`` when a deposit it started in the window succeeded only after the season was
measured (the walk took longer than the window), ``tried_failed`` when a deposit it started
failed for a reason of the body (the reason kind is kept), ``stopped`` when it started one
and then dropped it itself (cancelled, asked for an
item it lacked) or the deposit was still running when the season was measured;
``nothing_to_pay`` when it held nothing at the opening; ``nothing_asked`` at a 0% rate.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from experiments.files import read_csv
from experiments.ledger import BODY_KINDS, read_skills

CLASSES = ("paid_full", "paid_less", "paid_late", "decided_not", "tried_failed", "stopped",
           "nothing_to_pay", "nothing_asked")
PHASES = ("before", "after")


def windows(out: Path) -> dict[tuple[str, int, int], tuple[float, float]]:
    """(condition, repeat, season) -> (opened, closed) wall times, from ``timeline.jsonl``."""
    opened: dict[tuple[str, int, int], float] = {}
    closed: dict[tuple[str, int, int], float] = {}
    tl = out / "timeline.jsonl"
    for line in tl.read_text(encoding="utf-8").splitlines() if tl.exists() else []:
        e = json.loads(line)
        if e.get("event") not in ("season_open", "season_close"):
            continue
        key = (str(e["condition"]), int(e["repeat"]), int(e["season"]))
        if e["event"] == "season_open":
            opened[key] = float(e.get("open_wall", e["wall"]))
        else:
            closed[key] = float(e["wall"])
    return {k: (t0, closed.get(k, math.inf)) for k, t0 in opened.items()}


def distributed_at(out: Path) -> dict[tuple[str, int], float]:
    """(condition, repeat) -> wall time of the distribution (the phases' border)."""
    at: dict[tuple[str, int], float] = {}
    tl = out / "timeline.jsonl"
    for line in tl.read_text(encoding="utf-8").splitlines() if tl.exists() else []:
        e = json.loads(line)
        if e.get("event") == "distribute":
            at[(str(e["condition"]), int(e["repeat"]))] = float(e["wall"])
    return at


def classify(row: Mapping[str, str], tries: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(class, reason kind) of one constituent-season: ``row`` from ``deposits.csv``,
    ``tries`` its deposit skills started in the window (``skills.csv`` rows)."""
    inv = int(row["inventory_open"])
    rate = float(row["rate"])
    got = max(float(row["deposited"] or 0), float(row["deposited_ledger"] or 0))
    if got > 0:
        due = max(1, math.floor(rate * inv + 1e-9))
        return ("paid_full" if got >= due else "paid_less"), ""
    if inv <= 0:
        return "nothing_to_pay", ""
    if not tries:
        return ("nothing_asked" if rate <= 0 else "decided_not"), ""
    if any(t["success"] for t in tries):
        return "paid_late", ""
    body = Counter(t["kind"] for t in tries if t["success"] is False and t["kind"] in BODY_KINDS)
    if body:
        return "tried_failed", body.most_common(1)[0][0]
    own = Counter(t["kind"] or "unfinished" for t in tries if not t["success"])
    return "stopped", (own.most_common(1)[0][0] if own else "")


def seasons(out: Path) -> list[dict[str, Any]]:
    """Every constituent-season of ``deposits.csv`` with its class, the deposits it started
    in the window (and how they ended) and the reason kind."""
    win = windows(out)
    tries: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for s in read_skills(out):
        if s["skill"] == "deposit":
            tries[(s["condition"], s["repeat"], s["agent"])].append(s)
    rows = []
    for r in read_csv(out / "deposits.csv"):
        if r["role"] != "constituent":
            continue
        cond, rep, k = r["condition"], int(r["repeat"]), int(r["season"])
        t0, t1 = win.get((cond, rep, k), (math.nan, math.nan))
        mine = [s for s in tries[(cond, rep, r["agent"])] if t0 <= s["started"] <= t1]
        what, why = classify(r, mine)
        rows.append({
            "condition": cond, "repeat": rep, "season": k, "phase": r["phase"],
            "agent": r["agent"], "rate": float(r["rate"]), "class": what, "reason": why,
            "started": len(mine), "succeeded": sum(1 for s in mine if s["success"]),
            "failed": sum(1 for s in mine if s["success"] is False),
            "failed_by_kind": dict(Counter(s["kind"] for s in mine if s["success"] is False)),
        })
    return rows


def figures(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per condition and phase: constituent-seasons by class, "decided to pay" (a deposit
    started in the window), "paid", "failed" (tried and failed) as shares of the seasons,
    deposits started / succeeded in the windows, failures by kind, and the share of the
    seasons that paid nothing caused by a body failure vs the agent's decision."""
    acc: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        f = acc[r["condition"]].setdefault(r["phase"], {
            "seasons": 0, "classes": Counter(), "reasons": Counter(), "deposits_started": 0,
            "deposits_succeeded": 0, "deposit_failures": Counter()})
        f["seasons"] += 1
        f["classes"][r["class"]] += 1
        if r["class"] == "tried_failed":
            f["reasons"][r["reason"]] += 1
        f["deposits_started"] += r["started"]
        f["deposits_succeeded"] += r["succeeded"]
        f["deposit_failures"].update(r["failed_by_kind"])
    out: dict[str, dict[str, Any]] = {}
    for cond, phases in acc.items():
        out[cond] = {}
        for phase in PHASES:
            if phase not in phases:
                continue
            f = phases[phase]
            n, c = f["seasons"], f["classes"]
            asked = n - c["nothing_to_pay"] - c["nothing_asked"]
            paid = c["paid_full"] + c["paid_less"]
            tried = paid + c["paid_late"] + c["tried_failed"] + c["stopped"]
            unpaid = asked - paid
            out[cond][phase] = {
                "seasons": n, "classes": {k: c[k] for k in CLASSES},
                "decided_to_pay": _share(tried, asked), "paid": _share(paid, asked),
                "failed": _share(c["tried_failed"], asked),
                "paid_late": _share(c["paid_late"], asked),
                "unpaid_paid_late": _share(c["paid_late"], unpaid),
                "unpaid_by_body": _share(c["tried_failed"], unpaid),
                "unpaid_by_decision": _share(c["decided_not"] + c["stopped"], unpaid),
                "tried_failed_by_reason": dict(f["reasons"].most_common()),
                "deposits_started": f["deposits_started"],
                "deposits_succeeded": f["deposits_succeeded"],
                "deposits_succeeded_share": _share(f["deposits_succeeded"],
                                                   f["deposits_started"]),
                "deposit_failures_by_kind": dict(f["deposit_failures"].most_common()),
            }
    return out


def _share(a: int, b: int) -> float:
    return a / b if b > 0 else math.nan
