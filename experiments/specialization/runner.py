"""Specialization: do agents with the same traits and goal take on diverse, persistent roles?

Per run: every ``sample_every_s`` the agents' goal histories (``Goals.history``, kept
and changed goals) are read from the state store; after the run, every ``role_every_s``
each agent's role is inferred from its latest ``role_window`` goals; every started
skill is attributed to the agent's role at that time.

Outputs: ``goals.csv``, ``roles.csv`` (role per agent over time), ``actions.csv``;
``metrics.json`` with role distributions, Shannon entropy per society, role
persistence, and action-by-role matrices (counts, normalised by rows and columns).
"""

from __future__ import annotations

import bisect
import logging
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from experiments import metrics as M
from experiments import plots
from experiments.common import (
    ExperimentFile,
    ExperimentOptions,
    RunSpec,
    Strict,
    Timeline,
    brain_label,
    brains_seen,
    parse_protocol,
    plan_runs,
    read_events,
    run_village,
    write_csv,
    write_json,
)
from experiments.report import (
    is_pipeline_check,
    md_table,
    paper_column,
    paper_section,
    report_header,
)
from experiments.specialization.roles import RoleClassifier

log = logging.getLogger(__name__)


class SpecializationProtocol(Strict):
    duration_s: float = Field(default=1200.0, gt=0)
    sample_every_s: float = Field(default=10.0, gt=0)
    role_window: int = Field(default=5, ge=1)
    role_every_s: float = Field(default=30.0, gt=0)
    role_classifier: Literal["auto", "heuristic", "llm"] = "auto"
    top_roles_in_report: int = Field(default=6, ge=1)


async def _one_run(
    spec: RunSpec, opts: ExperimentOptions, p: SpecializationProtocol
) -> dict[str, Any]:
    from agent_runtime.state.sections import Goals

    goals: dict[str, dict[tuple[float, str], dict[str, Any]]] = defaultdict(dict)
    roles: list[dict[str, Any]] = []
    state: dict[str, Any] = {}

    def sample(village: Any, tl: Timeline) -> None:
        store = village.store
        for name in village.agents:
            g = store.agent(name).get("goals", Goals)
            for e in g.history:
                goals[name][(e.at, e.goal)] = {
                    "agent": name, "t": round((e.at - tl.start) / tl.scale, 3), "at": e.at,
                    "goal": e.goal, "brain": e.brain, "reason": e.reason,
                }

    async def during(village: Any, tl: Timeline) -> None:
        k = 1
        while True:
            await tl.until(k * p.sample_every_s)
            sample(village, tl)
            k += 1

    async def after(village: Any, tl: Timeline) -> None:
        sample(village, tl)
        state["start"], state["scale"] = tl.start, tl.scale
        state["agents"] = list(village.agents)
        use_llm = p.role_classifier != "heuristic"
        clf = RoleClassifier(village.services.llm, spec.config.community_goal, use_llm=use_llm)
        steps = math.floor(p.duration_s / p.role_every_s + 1e-9)
        for name in village.agents:
            entries = sorted(goals[name].values(), key=lambda e: e["at"])
            ats = [e["at"] for e in entries]
            for k in range(1, steps + 1):
                t = k * p.role_every_s
                i = bisect.bisect_right(ats, tl.wall(t))
                window = [e["goal"] for e in entries[max(0, i - p.role_window) : i]]
                role, brain = await clf.classify(name, window)
                roles.append({"agent": name, "t": t, "role": role, "brain": brain,
                              "window": " | ".join(window)})
        state["classifier_calls"] = clf.calls

    await run_village(spec, opts, p.duration_s, during, after, agent_limit=opts.agents)
    events = read_events(spec.run_dir)
    # attribute every started skill to the agent's role at that time
    by_agent: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for r in roles:
        by_agent[r["agent"]].append((r["t"], r["role"]))
    actions = []
    start, scale = state.get("start", 0.0), state.get("scale", 1.0)
    for e in events:
        if e.get("type") != "skill_started" or "agent" not in e:
            continue
        t = (float(e["t"]) - start) / scale
        seq = by_agent.get(e["agent"], [])
        times = [x[0] for x in seq]
        i = bisect.bisect_right(times, t)
        # the role of the window that contains t: the next role sample (or the last one)
        role = seq[min(i, len(seq) - 1)][1] if seq else ""
        skill = (e.get("call") or {}).get("skill", "?")
        actions.append({"agent": e["agent"], "t": round(t, 3), "skill": skill, "role": role})
    goal_rows = [g for name in goals for g in sorted(goals[name].values(), key=lambda x: x["at"])]
    return {
        "goals": goal_rows, "roles": roles, "actions": actions,
        "agents": state.get("agents", []), "brains": brains_seen(events),
        "classifier_calls": state.get("classifier_calls", 0),
    }


def analyse_run(run: dict[str, Any]) -> dict[str, Any]:
    roles = run["roles"]
    by_agent: dict[str, list[str]] = defaultdict(list)
    times: list[float] = sorted({r["t"] for r in roles})
    at_time: dict[float, list[str]] = defaultdict(list)
    for r in roles:
        by_agent[r["agent"]].append(r["role"])
        if r["role"]:
            at_time[r["t"]].append(r["role"])
    final = {a: next((x for x in reversed(seq) if x), "") for a, seq in by_agent.items()}
    final_dist = Counter(v for v in final.values() if v)
    return {
        "final_roles": final,
        "role_distribution": dict(final_dist),
        "entropy_bits": M.shannon_entropy(final_dist),
        "entropy_over_time": [(t, M.shannon_entropy(Counter(at_time[t]))) for t in times],
        "persistence": M.mean_ci(
            [M.persistence(seq) for seq in by_agent.values()], 0.95
        ).mean,
        "distinct_roles": len(final_dist),
    }


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: SpecializationProtocol = parse_protocol(exp, SpecializationProtocol, out / "config.yaml")
    goal_rows: list[dict[str, Any]] = []
    role_rows: list[dict[str, Any]] = []
    action_rows: list[dict[str, Any]] = []
    per_cond: dict[str, list[dict[str, Any]]] = defaultdict(list)
    brains: Counter[str] = Counter()
    configured = ""
    plot_dir = out / "plots"
    for spec in plan_runs(exp, opts, out):
        configured = brain_label(spec.config)
        if opts.progress:
            opts.progress(f"run {spec.label} ({len(spec.config.agents) or 'templated'} agents)")
        run = await _one_run(spec, opts, p)
        brains.update(run["brains"])
        tag = {"condition": spec.condition.name, "repeat": spec.repeat}
        goal_rows += [{**tag, **g} for g in run["goals"]]
        role_rows += [{**tag, **r} for r in run["roles"]]
        action_rows += [{**tag, **a} for a in run["actions"]]
        res = analyse_run(run)
        res.update(tag)
        res["agents"] = len(run["agents"])
        res["classifier_calls"] = run["classifier_calls"]
        res["role_brains"] = dict(Counter(r["brain"] for r in run["roles"] if r["brain"]))
        per_cond[spec.condition.name].append({"result": res, "run": run})
        if spec.repeat == 0:
            agents = sorted(run["agents"])
            times = sorted({r["t"] for r in run["roles"]})
            grid = {(r["agent"], r["t"]): r["role"] for r in run["roles"]}
            plots.role_timeline(
                plot_dir / f"roles_over_time_{spec.condition.name}.png", agents, times,
                [[grid.get((a, t)) for t in times] for a in agents],
                title=f"Role per agent over time ({spec.condition.name})",
            )
    write_csv(out / "goals.csv", goal_rows,
              ["condition", "repeat", "agent", "t", "goal", "brain", "reason"])
    write_csv(out / "roles.csv", role_rows,
              ["condition", "repeat", "agent", "t", "role", "brain", "window"])
    write_csv(out / "actions.csv", action_rows,
              ["condition", "repeat", "agent", "t", "skill", "role"])

    summary: dict[str, Any] = {}
    dist_groups: dict[str, dict[str, float]] = {}
    entropy_series: dict[str, tuple[list[float], list[float]]] = {}
    for cond, items in per_cond.items():
        results = [it["result"] for it in items]
        pooled: Counter[str] = Counter()
        for r in results:
            pooled.update(r["role_distribution"])
        total = sum(pooled.values()) or 1
        dist_groups[cond] = {k: v / total for k, v in pooled.items()}
        pairs = [(a["role"] or "none", a["skill"])
                 for it in items for a in it["run"]["actions"]]
        rows, cols, counts = M.count_matrix(pairs)
        plots.heatmap(plot_dir / f"action_by_role_rows_{cond}.png", M.normalise_rows(counts),
                      rows, cols, title=f"Actions by role, rows normalised ({cond})",
                      xlabel="action", ylabel="role")
        plots.heatmap(plot_dir / f"action_by_role_cols_{cond}.png", M.normalise_cols(counts),
                      rows, cols, title=f"Actions by role, columns normalised ({cond})",
                      xlabel="action", ylabel="role")
        ent = M.mean_ci([r["entropy_bits"] for r in results])
        per = M.mean_ci([r["persistence"] for r in results])
        eot = results[0]["entropy_over_time"]
        entropy_series[cond] = ([t for t, _ in eot], [h for _, h in eot])
        summary[cond] = {
            "runs": results,
            "entropy_bits": {"mean": ent.mean, "ci95": [ent.lo, ent.hi], "n": ent.n},
            "persistence": {"mean": per.mean, "ci95": [per.lo, per.hi], "n": per.n},
            "role_distribution": dict(pooled),
            "distinct_roles_mean": M.mean_ci([r["distinct_roles"] for r in results]).mean,
            "action_by_role": {
                "roles": rows, "actions": cols, "counts": counts.tolist(),
                "row_normalised": M.normalise_rows(counts).tolist(),
                "col_normalised": M.normalise_cols(counts).tolist(),
            },
        }
    plots.bars(plot_dir / "role_distribution.png", dist_groups,
               title="Role distribution at the end (share of agents)", ylabel="share")
    plots.lines(plot_dir / "entropy_over_time.png", entropy_series,
                title="Shannon entropy of roles over time (repeat 0)", xlabel="protocol s",
                ylabel="bits")
    metrics = {"experiment": exp.experiment, "brain": configured, "brains_seen": dict(brains),
               "time_scale": opts.time_scale, "protocol": p.model_dump(), "conditions": summary}
    write_json(out / "metrics.json", metrics)

    top_n = p.top_roles_in_report
    table = md_table(
        ["condition", "agents", "distinct roles", "entropy (bits)", "persistence", "top roles"]
        + ([] if is_pipeline_check(configured) else ["paper"]),
        [
            [c, s["runs"][0]["agents"], s["distinct_roles_mean"], s["entropy_bits"]["mean"],
             s["persistence"]["mean"],
             ", ".join(f"{k} {v}" for k, v in Counter(s["role_distribution"]).most_common(top_n)),
             *paper_column(exp, configured, c)]
            for c, s in summary.items()
        ],
    )
    report = report_header("Specialization", exp, opts, brains, configured) + table + "\n\n"
    report += (
        "Entropy: Shannon entropy (bits) of the final role distribution of each society, mean "
        "over repeats. Persistence: share of consecutive role samples (every "
        f"{p.role_every_s:g} protocol s, window of the latest {p.role_window} goals) in which "
        "an agent kept its role.\n\nPlots: `plots/role_distribution.png`, "
        "`plots/entropy_over_time.png`, `plots/roles_over_time_<condition>.png`, "
        "`plots/action_by_role_rows_<condition>.png`, `plots/action_by_role_cols_<condition>.png`.\n\n"
        "Roles are inferred after the run, on the experiment's side, from each agent's own goal "
        "history; no agent is given a role, a role table or a goal by the experiment.\n"
    )
    report += paper_section(exp, configured)
    (out / "report.md").write_text(report, encoding="utf-8")
    return metrics
