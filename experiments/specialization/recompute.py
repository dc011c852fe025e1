"""Every figure of a specialization report, from the run's raw data files.

``python -m experiments.specialization.recompute OUT`` prints them and exits 1 when
``OUT/metrics.json`` or ``OUT/report.md`` says anything else. Raw files: ``roles.csv`` (the
role inferred for each agent at each role sample, with the window of goals it came from),
``actions.csv`` (every started skill and the agent's role at that time), ``goals.csv`` (the
goal histories the roles were inferred from) and ``runs.csv``. The runner builds its report
with these same functions.
"""

from __future__ import annotations

import math
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments import ledger
from experiments import metrics as M
from experiments.files import read_csv
from experiments.report import is_pipeline_check, md_table, paper_column
from experiments.runner_base import context, read_runs, recompute_main

GOAL_FIELDS = ["condition", "repeat", "agent", "t", "goal", "brain", "reason"]
ROLE_FIELDS = ["condition", "repeat", "agent", "t", "role", "brain", "window"]
ACTION_FIELDS = ["condition", "repeat", "agent", "t", "skill", "role"]


def analyse_run(roles: list[dict[str, Any]]) -> dict[str, Any]:
    """One society: final role distribution, its entropy, entropy over time, persistence."""
    by_agent: dict[str, list[str]] = defaultdict(list)
    times: list[float] = sorted({r["t"] for r in roles})
    at_time: dict[float, list[str]] = defaultdict(list)
    for r in sorted(roles, key=lambda x: (x["agent"], x["t"])):
        by_agent[r["agent"]].append(r["role"])
        if r["role"]:
            at_time[r["t"]].append(r["role"])
    final = {a: next((x for x in reversed(seq) if x), "") for a, seq in by_agent.items()}
    final_dist = Counter(v for v in final.values() if v)
    return {
        "role_distribution": dict(final_dist),
        "entropy_bits": M.shannon_entropy(final_dist),
        "entropy_over_time": [[t, M.shannon_entropy(Counter(at_time[t]))] for t in times],
        "persistence": M.mean_ci([M.persistence(seq) for seq in by_agent.values()]).mean,
        "distinct_roles": len(final_dist),
    }


def figures(out: Path) -> dict[str, Any]:
    """Per condition: each run's figures; entropy and persistence with CIs over repeats (a
    society is the unit); the role distribution and the action-by-role matrix pooled."""
    agents = {(r["condition"], r["repeat"]): r["agents"] for r in read_runs(out)}
    roles: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in read_csv(out / "roles.csv"):
        roles[(r["condition"], int(r["repeat"]))].append(
            {"agent": r["agent"], "t": float(r["t"]), "role": r["role"]})
    actions: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for a in read_csv(out / "actions.csv"):
        actions[a["condition"]].append((a["role"] or "none", a["skill"]))
    figs: dict[str, Any] = {}
    for (cond, rep), rs in roles.items():  # in run order
        f = figs.setdefault(cond, {"runs": []})
        f["runs"].append({"repeat": rep, "agents": agents.get((cond, rep), 0), **analyse_run(rs)})
    for cond, f in figs.items():
        runs = f["runs"]
        ent = M.mean_ci([r["entropy_bits"] for r in runs], 0.95, (0, math.inf))
        per = M.mean_ci([r["persistence"] for r in runs], 0.95, (0, 1))
        pooled: Counter[str] = Counter()
        for r in runs:
            pooled.update(r["role_distribution"])
        rows, cols, counts = M.count_matrix(actions.get(cond, []))
        f.update({
            "repeats": len(runs),
            "entropy_bits": {"mean": ent.mean, "ci95": [ent.lo, ent.hi], "n": ent.n},
            "persistence": {"mean": per.mean, "ci95": [per.lo, per.hi], "n": per.n},
            "role_distribution": dict(pooled),
            "distinct_roles_mean": M.mean_ci([r["distinct_roles"] for r in runs]).mean,
            "action_by_role": {
                "roles": rows, "actions": cols, "counts": counts.tolist(),
                "row_normalised": M.normalise_rows(counts).tolist(),
                "col_normalised": M.normalise_cols(counts).tolist(),
            },
        })
    figs[ledger.BODY] = ledger.figures(ledger.read_skills(out))
    return figs


def _ci(v: list[float]) -> str:
    return "[" + ", ".join("n/a" if not math.isfinite(x) else f"{x:.2f}" for x in v) + "]"


def tables(out: Path, figs: Mapping[str, Any]) -> str:
    exp, brain = context(out)
    top_n = int(exp.protocol.get("top_roles_in_report", 6))
    return md_table(
        ["condition", "repeats", "agents (r0)", "distinct roles", "entropy (bits)", "CI",
         "persistence", "CI", "top roles"] + ([] if is_pipeline_check(brain) else ["paper"]),
        [[c, s["repeats"], s["runs"][0]["agents"], s["distinct_roles_mean"],
          s["entropy_bits"]["mean"], _ci(s["entropy_bits"]["ci95"]), s["persistence"]["mean"],
          _ci(s["persistence"]["ci95"]),
          ", ".join(f"{k} {v}" for k, v in Counter(s["role_distribution"]).most_common(top_n)),
          *paper_column(exp, brain, c)] for c, s in ledger.without(figs).items()],
    ) + ledger.section(figs)


if __name__ == "__main__":
    sys.exit(recompute_main("specialization", figures, tables))
