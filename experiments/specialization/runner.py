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
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from agent_runtime.clock import Clock
from agent_runtime.config.models import Strict
from experiments import common, ledger, plots
from experiments.files import read_events
from experiments.runner_base import RunBook, parse_protocol
from experiments.spec import ExperimentFile, ExperimentOptions, RunSpec
from experiments.specialization import recompute
from experiments.specialization.roles import RoleClassifier

log = logging.getLogger(__name__)


class SpecializationProtocol(Strict):
    duration_s: float = Field(default=1200.0, gt=0)
    sample_every_s: float = Field(default=10.0, gt=0)
    role_window: int = Field(default=5, ge=1)
    role_every_s: float = Field(default=30.0, gt=0)
    role_classifier: Literal["auto", "heuristic", "llm"] = "auto"
    top_roles_in_report: int = Field(default=6, ge=1)


PROTOCOL_MODEL = SpecializationProtocol


async def _one_run(
    spec: RunSpec, opts: ExperimentOptions, p: SpecializationProtocol
) -> dict[str, Any]:
    from agent_runtime.state.sections import Goals

    goals: dict[str, dict[tuple[float, str], dict[str, Any]]] = defaultdict(dict)
    roles: list[dict[str, Any]] = []
    state: dict[str, Any] = {}

    async def sample(village: Any, tl: Clock) -> None:
        await common.fresh_state(village)  # agents in workers: their state from Redis
        store = village.store
        end = tl.wall(p.duration_s)
        for name in common.agent_names(village):
            g = store.agent(name).get("goals", Goals)
            for e in g.history:
                # the agents run on while the last sample is read (seconds under load): a
                # goal set after the run's end is not the run's
                if e.at > end:
                    continue
                goals[name][(e.at, e.goal)] = {
                    "agent": name, "t": round(tl.since_start(e.at), 3), "at": e.at,
                    "goal": e.goal, "brain": e.brain, "reason": e.reason,
                }

    async def during(village: Any, tl: Clock) -> None:
        k = 1
        while True:
            await tl.until(k * p.sample_every_s)
            await sample(village, tl)
            k += 1

    async def after(village: Any, tl: Clock) -> None:
        await sample(village, tl)
        state["start"], state["scale"] = tl.started, tl.time_scale
        state["agents"] = common.agent_names(village)
        use_llm = p.role_classifier != "heuristic"
        clf = RoleClassifier(village.services.llm, spec.config.community_goal, use_llm=use_llm)
        steps = math.floor(p.duration_s / p.role_every_s + 1e-9)
        for name in state["agents"]:
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

    await common.run_village(spec, opts, p.duration_s, during, after, agent_limit=opts.agents)
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
        "agents": state.get("agents", []), "events": events,
        "classifier_calls": state.get("classifier_calls", 0),
    }


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: SpecializationProtocol = parse_protocol(exp, SpecializationProtocol, out / "config.yaml")
    book = RunBook(exp, opts, out)
    calls: dict[str, int] = {}
    for spec in book.runs():
        run = await _one_run(spec, opts, p)
        book.done(spec, len(run["agents"]), run["events"])
        book.collect(spec, goals=run["goals"], roles=run["roles"], actions=run["actions"],
                     skills=ledger.skill_rows(run["events"]))
        calls[spec.label] = run["classifier_calls"]
    book.write("goals", recompute.GOAL_FIELDS)
    book.write("roles", recompute.ROLE_FIELDS)
    book.write("actions", recompute.ACTION_FIELDS)
    book.write("skills", ledger.SKILL_FIELDS)
    figs = recompute.figures(out)
    _plots(out, ledger.without(figs), book.tables.get("roles", []))
    text = (
        "\n\nEntropy: Shannon entropy (bits) of the final role distribution of each society, "
        "mean and CI over repeats (a society is the unit). Persistence: share of consecutive "
        f"role samples (every {p.role_every_s:g} protocol s, window of the latest "
        f"{p.role_window} goals) in which an agent kept its role.\n\nRaw data: `roles.csv`, "
        "`actions.csv`, `goals.csv`, `runs.csv`; `python -m experiments.specialization.recompute "
        "OUT` recomputes every figure above (and the action-by-role matrices in "
        "`metrics.json`) from them.\n\nPlots: `plots/role_distribution.png`, "
        "`plots/entropy_over_time.png`, `plots/roles_over_time_<condition>.png`, "
        "`plots/action_by_role_rows_<condition>.png`, `plots/action_by_role_cols_<condition>.png`."
        "\n\nRoles are inferred after the run, on the experiment's side, from each agent's own "
        "goal history; no agent is given a role, a role table or a goal by the experiment.\n\n"
        + ledger.LEDGER_TEXT
    )
    return book.finish("Specialization", p, figs, recompute.tables(out, figs), text,
                       {"classifier_calls": calls})


def _plots(out: Path, figs: dict[str, Any], role_rows: list[dict[str, Any]]) -> None:
    plot_dir = out / "plots"
    dist_groups: dict[str, dict[str, float]] = {}
    entropy_series: dict[str, tuple[list[float], list[float]]] = {}
    for cond, s in figs.items():
        total = sum(s["role_distribution"].values()) or 1
        dist_groups[cond] = {k: v / total for k, v in s["role_distribution"].items()}
        eot = s["runs"][0]["entropy_over_time"]
        entropy_series[cond] = ([t for t, _ in eot], [h for _, h in eot])
        m = s["action_by_role"]
        for how in ("rows", "cols"):
            plots.heatmap(plot_dir / f"action_by_role_{how}_{cond}.png",
                          m[f"{how[:3]}_normalised"],
                          m["roles"], m["actions"],
                          title=f"Actions by role, {how[:-1]}s normalised ({cond})",
                          xlabel="action", ylabel="role")
        first = [r for r in role_rows if r["condition"] == cond and r["repeat"] == 0]
        agents = sorted({r["agent"] for r in first})
        times = sorted({r["t"] for r in first})
        grid = {(r["agent"], r["t"]): r["role"] for r in first}
        plots.role_timeline(plot_dir / f"roles_over_time_{cond}.png", agents, times,
                            [[grid.get((a, t)) for t in times] for a in agents],
                            title=f"Role per agent over time ({cond})")
    plots.bars(plot_dir / "role_distribution.png", dist_groups,
               title="Role distribution at the end (share of agents)", ylabel="share")
    plots.lines(plot_dir / "entropy_over_time.png", entropy_series,
                title="Shannon entropy of roles over time (repeat 0)", xlabel="protocol s",
                ylabel="bits")
