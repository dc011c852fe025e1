"""The body ledger of an experiment: what the agents' bodies were asked to do and what came of it.

Read from each run's ``runs/<run>/events.jsonl`` (``skill_started`` / ``skill_outcome``, as
``modules/skill_execution.py`` emits them): per condition, phase and skill, the skills started,
succeeded and failed, the failures by *kind* (:func:`failure_kind` turns the body's prose
reason and its machine-readable ``failure`` into one of :data:`KINDS`). A report shows it so a
reader can tell an outcome the agents decided (no deposit started, a smelt never tried) from one
their bodies failed at (a walk that timed out, a chest that was not loaded).

Every experiment's ``recompute.py`` calls :func:`figures` and :func:`table`; the scoring side
only (no agent reads this).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from experiments.files import read_csv
from experiments.report import md_table

__all__ = [
    "BODY", "BODY_KINDS", "KINDS", "LEDGER_TEXT", "SKILL_FIELDS", "failure_kind", "figures", "outcomes",
    "read_skills", "section", "skill_rows", "table", "tally", "without",
]

#: the kinds a failed skill is sorted into (in the order tables list them)
KINDS = (
    "not_loaded",  # the target's chunk was not loaded by the body: it failed without walking
    "walk_timed_out",  # the skill's time ran out while the body was walking to the target
    "too_far",  # the target lay beyond the distance a skill walks to (go_to nearer first)
    "no_path",  # no path to the target (or the walk gave up: blocked)
    "stuck",  # the body stood still while walking
    "timed_out_acting",  # the time ran out at the target (digging, depositing, crafting)
    "no_such_item",  # the inventory lacked the item (or the tool) the skill needs
    "target_not_found",  # no such block / player / place in sight or within the search
    "taken_by_other",  # someone else took the target (block dug, tree, drop, hand-over)
    "server_refused",  # the server did not apply an action
    "cancelled",  # the agent's controller (or a perceived urgent reason) stopped it
    "disconnected",  # the body was not connected
    "bad_arguments",  # the call itself was wrong
    "body_error",  # the bridge to the body failed
    "other",
)
#: kinds that are the body's failing, not the agent's decision (cancelled, bad_arguments and a
#: missing item are the agent's own doing: it stopped the skill, or asked for what it lacks)
BODY_KINDS = frozenset(KINDS) - {"cancelled", "bad_arguments", "no_such_item"}

_WALKING = re.compile(r"\bwalk(ing)?\b|\bon the way\b|\bto reach\b", re.I)
_BY_FAILURE = {
    "target_out_of_reach": "no_path", "stuck": "stuck", "item_missing": "no_such_item",
    "tool_missing": "no_such_item", "target_not_found": "target_not_found",
    "taken_by_other": "taken_by_other", "block_gone": "taken_by_other",
    "receiver_not_picking_up": "taken_by_other", "drops_not_reached": "other",
    "server_refused": "server_refused", "cancelled": "cancelled",
    "disconnected": "disconnected", "not_connected": "disconnected",
    "bad_arguments": "bad_arguments",
}


def failure_kind(outcome: Mapping[str, Any]) -> str:
    """The kind of one failed ``skill_outcome`` (its ``reason``, ``failure``, ``cancelled``
    and ``timed_out`` fields); see :data:`KINDS`."""
    reason = str(outcome.get("reason") or "")
    low = reason.lower()
    failure = str(outcome.get("failure") or "")
    if outcome.get("cancelled") or failure == "cancelled":
        return "cancelled"
    if "not loaded" in low:
        return "not_loaded"
    if outcome.get("timed_out") or failure == "timed_out" or low.startswith("timed out"):
        return "walk_timed_out" if _WALKING.search(reason) else "timed_out_acting"
    if re.search(r"\bblocks away\b.*\bwithin \d+ blocks\b", low):
        return "too_far"
    if low.startswith("body error"):
        return "body_error"
    if low.startswith("no path") or "no path" in low:
        return "no_path"
    if failure in _BY_FAILURE:
        return _BY_FAILURE[failure]
    if re.search(r"\b(has|have|holds?) no\b|\bnot enough\b|\bno such item\b|\bmissing\b", low):
        return "no_such_item"
    if "refused" in low or "rejected" in low:
        return "server_refused"
    if "not found" in low or ("no " in low and "in sight" in low):
        return "target_not_found"
    return "other"


def outcomes(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every skill an agent started, with how it ended: ``{agent, skill, started, ended,
    success, kind, reason, delta}`` (``ended``/``success`` None when no outcome was recorded,
    e.g. the run ended during it). An agent runs one skill at a time, so a skill's outcome is
    the agent's next ``skill_outcome`` of that skill after it started."""
    out: list[dict[str, Any]] = []
    running: dict[str, dict[str, Any]] = {}
    for e in sorted(events, key=lambda e: float(e.get("t", 0.0))):
        kind = e.get("type")
        if kind not in ("skill_started", "skill_outcome"):
            continue
        agent = str(e.get("agent", ""))
        skill = str((e.get("call") or {}).get("skill", ""))
        if kind == "skill_started":
            row: dict[str, Any] = {"agent": agent, "skill": skill, "started": float(e["t"]), "ended": None,
                                   "success": None, "kind": "", "reason": "", "delta": {},
                                   "args": dict((e.get("call") or {}).get("args") or {})}
            running[agent] = row
            out.append(row)
            continue
        done = running.pop(agent, None)
        if done is None or done["skill"] != skill:
            continue  # an outcome without its start (the start was before the file began)
        done.update(ended=float(e["t"]), success=bool(e.get("success")),
                   reason=str(e.get("reason") or ""), delta=dict(e.get("delta") or {}),
                   kind="" if e.get("success") else failure_kind(e))
    return out


Phase = Callable[[float], str]


def tally(rows: Iterable[Mapping[str, Any]], phase_of: Phase | None = None,
          agents: Iterable[str] | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """(phase, skill) -> ``{started, succeeded, failed, unfinished, by_kind}`` over
    :func:`outcomes` rows (phase by the start time; ``agents`` limits whose skills count)."""
    keep = None if agents is None else set(agents)
    acc: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        if keep is not None and r["agent"] not in keep:
            continue
        key = (phase_of(r["started"]) if phase_of else "all", r["skill"])
        a = acc.setdefault(key, {"started": 0, "succeeded": 0, "failed": 0, "unfinished": 0,
                                 "by_kind": Counter()})
        a["started"] += 1
        if r["success"] is None:
            a["unfinished"] += 1
        elif r["success"]:
            a["succeeded"] += 1
        else:
            a["failed"] += 1
            a["by_kind"][r["kind"]] += 1
    return acc


SKILL_FIELDS = ["condition", "repeat", "agent", "skill", "started", "ended", "success", "kind",
                "reason", "args", "delta"]


def skill_rows(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """:func:`outcomes` as rows of the raw file ``skills.csv`` (without condition/repeat)."""
    return [{**r, "started": round(r["started"], 4),
             "ended": None if r["ended"] is None else round(r["ended"], 4)}
            for r in outcomes(events)]


def read_skills(out: Path) -> list[dict[str, Any]]:
    """``skills.csv`` with its cells typed back (empty when the file is missing)."""
    path = out / "skills.csv"
    if not path.exists():
        return []
    rows = []
    for r in read_csv(path):
        ok = r["success"]
        rows.append({**r, "repeat": int(r["repeat"]), "started": float(r["started"]),
                     "ended": float(r["ended"]) if r["ended"] else None,
                     "success": None if ok == "" else ok == "True",
                     "args": json.loads(r["args"] or "{}"),
                     "delta": json.loads(r["delta"] or "{}")})
    return rows


def figures(skills: Sequence[Mapping[str, Any]],
            phase_for: Callable[[str, int], Phase | None] | None = None,
            agents_for: Callable[[str, int], Iterable[str] | None] | None = None,
            ) -> list[dict[str, Any]]:
    """The body ledger: one row per condition, phase and skill (summed over the condition's
    repeats) from ``skills.csv``'s rows. ``phase_for(condition, repeat)`` gives a run's phase
    of a wall time (None: one phase, ``all``); ``agents_for(condition, repeat)`` whose skills
    count (None: everybody's)."""
    runs: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for r in skills:
        runs[(str(r["condition"]), int(r["repeat"]))].append(r)
    acc: dict[tuple[str, str, str], dict[str, Any]] = {}
    for (cond, rep), rows in runs.items():
        phase = phase_for(cond, rep) if phase_for else None
        who = agents_for(cond, rep) if agents_for else None
        for (ph, skill), a in tally(rows, phase, who).items():
            b = acc.setdefault((cond, ph, skill), {
                "started": 0, "succeeded": 0, "failed": 0, "unfinished": 0,
                "by_kind": Counter()})
            for k in ("started", "succeeded", "failed", "unfinished"):
                b[k] += a[k]
            b["by_kind"].update(a["by_kind"])
    result = []
    for (cond, ph, skill), a in acc.items():
        body = sum(n for k, n in a["by_kind"].items() if k in BODY_KINDS)
        result.append({
            "condition": cond, "phase": ph, "skill": skill, "started": a["started"],
            "succeeded": a["succeeded"], "failed": a["failed"], "unfinished": a["unfinished"],
            "failed_by_body": body,
            "by_kind": {k: a["by_kind"][k] for k in KINDS if a["by_kind"][k]},
        })
    order = {"before": 0, "all": 0, "after": 1}
    result.sort(key=lambda r: (r["condition"], order.get(r["phase"], 2), r["phase"],
                               -r["started"], r["skill"]))
    return result


#: the key of the body ledger in a report's figures whose other keys are conditions (or runs)
BODY = "body_ledger"


def without(figs: Mapping[str, Any]) -> dict[str, Any]:
    """A report's per-condition (or per-run) figures, without the body ledger."""
    return {k: v for k, v in figs.items() if k != BODY}


def section(figs: Mapping[str, Any]) -> str:
    """The report's "Body ledger" section from ``figs[BODY]``."""
    return "\n\n## Body ledger\n\n" + table(figs.get(BODY, []))


def kinds_text(by_kind: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in by_kind.items()) or "-"


def table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The ledger as a Markdown table (the report's "Body ledger" section)."""
    return md_table(
        ["condition", "phase", "skill", "started", "succeeded", "failed", "of them the body's",
         "unfinished at the end", "failures by kind"],
        [[r["condition"], r["phase"], r["skill"], r["started"], r["succeeded"], r["failed"],
          r["failed_by_body"], r["unfinished"], kinds_text(r["by_kind"])] for r in rows],
    )


LEDGER_TEXT = (
    "Body ledger: every skill the agents' bodies started (`skill_started` in each run's "
    "`events.jsonl`) and how it ended (`skill_outcome`): succeeded, failed (by kind: "
    "`not_loaded` = the target's chunk was not loaded so the skill failed without walking; "
    "`too_far` = beyond the distance a skill walks to; "
    "`walk_timed_out` / `timed_out_acting` = the skill's time ran out while walking to the "
    "target / at it; `no_path`, `stuck`, `taken_by_other`, `server_refused`, ... are the "
    "body's; `cancelled` (the agent's controller or an urgent perceived reason stopped it), "
    "`no_such_item` and `bad_arguments` are the agent's own doing), or still running when "
    "the run ended. \"Of them the body's\" counts the failures that were not the agent's "
    "decision.\n\n"
)
