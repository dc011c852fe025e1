"""Tax law: do agents follow a constitution they change by vote, and do influencers sway it?

The protocol of a run is in :mod:`experiments.tax.protocol`; this file builds each run's
village (roster, inventories, the chest positions as every agent's own location memory),
runs it, and turns the measurements into files, plots and the report.

Deposits per agent are measured from the chests' and inventories' contents (admin API); the
run's ``skill_outcome`` events (successful ``deposit`` skills in the window: the ledger) are a
check. How well the controllers kept their word (decisions cancelled per agent-hour, deposits
started / finished / cancelled) is read from the run's events.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from agent_runtime.config.layout import VillageLayout
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import VillageConfig
from experiments import common, ledger, plots
from experiments import metrics as M
from experiments.files import read_events, write_csv, write_json, write_jsonl
from experiments.runner_base import RunBook, parse_protocol
from experiments.spec import Condition, ExperimentFile, ExperimentOptions
from experiments.tax import recompute
from experiments.tax.announcements import chest_memory, chest_positions
from experiments.tax.measure import season_rows
from experiments.tax.protocol import TaxProtocol, TaxRun
from experiments.tax.roster import Member, roster

log = logging.getLogger(__name__)

__all__ = ["PROTOCOL_MODEL", "TaxProtocol", "make_config", "members_of", "run_experiment"]

PROTOCOL_MODEL = TaxProtocol

Rosters = dict[tuple[str, int], list[Member]]


def members_of(p: TaxProtocol, stance: str, seed: int, voters: int | None) -> list[Member]:
    if stance not in p.influencer_traits:
        raise ValueError(f"params.influencers must be one of {sorted(p.influencer_traits)}")
    return roster(
        influencers=p.influencers, constituents=p.constituents, occupations=list(p.occupations),
        constituent_traits=p.constituent_traits,
        occupation_traits={k: o.traits for k, o in p.occupations.items()},
        influencer_traits=p.influencer_traits[stance], seed=seed, voters=voters,
    )


def make_config(p: TaxProtocol, opts: ExperimentOptions, rosters: Rosters | None = None) -> Any:
    """The village of one run: each agent gets only its own name, traits, inventory and the
    chests' positions as a location memory. The roster (who is an influencer) goes to
    ``rosters`` (the experiment's ledger), never into an agent's config."""

    def build(data: dict[str, Any], cond: Condition, seed: int) -> VillageConfig:
        stance = str(cond.params.get("influencers", "pro"))
        if stance not in p.influencer_traits:
            raise ValueError(f"condition {cond.name}: params.influencers must be one of "
                             f"{sorted(p.influencer_traits)}")
        members = members_of(p, stance, seed, opts.agents)
        layout = VillageLayout.model_validate(data.get("world", {}).get("layout", {}))
        where = chest_memory(chest_positions(layout))

        def home(m: Member) -> dict[str, float] | None:
            at = p.homes.get(m.occupation)
            return None if at is None else {"x": layout.centre_x + at[0], "y": p.home_y,
                                            "z": layout.centre_z + at[1]}

        data["agents"] = [
            {
                "name": m.name, "traits": list(m.traits), "spawn_location": home(m),
                "inventory": dict(p.influencer_inventory if m.role == "influencer"
                                  else p.occupations[m.occupation].inventory),
                "location_memories": [where] if where else [],
            }
            for m in members
        ]
        data.pop("agent_templates", None)
        if rosters is not None:
            rosters[(cond.name, seed)] = members
        return parse_config(data, f"tax/{cond.name}")

    return build


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: TaxProtocol = parse_protocol(exp, TaxProtocol, out / "config.yaml")
    all_rows: list[dict[str, Any]] = []
    all_totals: list[dict[str, Any]] = []
    all_votes: list[dict[str, Any]] = []
    all_feedback: list[dict[str, Any]] = []
    all_timeline: list[dict[str, Any]] = []
    all_skills: list[dict[str, Any]] = []
    all_windows: list[dict[str, Any]] = []
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    book = RunBook(exp, opts, out)
    rosters: Rosters = {}
    for spec in book.runs(make_config(p, opts, rosters)):
        members = rosters[(spec.condition.name, spec.seed)]
        run = TaxRun(spec, p, members, chest_positions(spec.config.world.layout))
        await common.run_village(spec, opts, p.duration_s, run.during, run.after)
        events = read_events(spec.run_dir)
        book.done(spec, len(members), events)
        kept = M.commitment(events, len(members), p.duration_s * opts.time_scale)
        rows, totals = season_rows(run, events)
        tag = {"condition": spec.condition.name, "repeat": spec.repeat}
        all_rows += [{**tag, **r} for r in rows]
        all_totals += [{**tag, **r} for r in totals]
        all_votes += [{**tag, **v} for v in run.votes]
        all_feedback += [{**tag, **f} for f in run.feedback]
        all_timeline += [{**tag, **t} for t in run.timeline]
        all_skills += [{**tag, **r} for r in ledger.skill_rows(events)]
        all_windows += [{**tag, **w} for w in run.windows]
        cdir = out / "constitutions"
        cdir.mkdir(parents=True, exist_ok=True)
        for c in run.constitutions:
            (cdir / f"{spec.label}_v{c.version}.md").write_text(
                f"<!-- tax rate {c.tax_rate}; brain {c.brain} -->\n{c.text}\n", encoding="utf-8")
        write_json(spec.run_dir / "democracy.json", {
            "election_manager": "played by the experiment: no body, no game actions; it drafts "
                                "the amendments from the feedback it received, tallies the "
                                "votes and rewrites the constitution",
            "amendments": run.amendments, "tally": run.tally,
            "constitutions": [c.model_dump() for c in run.constitutions],
            "in_force_after": run.in_force.model_dump(), "frozen": run.frozen,
            "announcements": run.announced, "chests_told": run.chests_planned,
            "chests_measured": run.chests,
        })
        before = [r["share"] for r in rows if r["phase"] == "before"]
        after = [r["share"] for r in rows if r["phase"] == "after"]
        runs[spec.condition.name].append({
            "repeat": spec.repeat, "rate_before": p.initial_tax_rate,
            "rate_after": run.in_force.tax_rate, "amendments": run.amendments,
            "tally": run.tally, "mean_share_before": M.mean_ci(before).mean,
            "mean_share_after": M.mean_ci(after).mean, "measured_by": run.measured_by,
            "ledger_matches_chests": all(t["match"] for t in totals if t["match"] is not None),
            "seasons_measured": len(totals), "commitment": kept,
            "chests_as_told": run.chests == run.chests_planned,
        })
    fields = ["condition", "repeat", "season", "phase", "rate", "agent", "role", "inventory_open",
              "inventory_close", "deposited", "share", "deposited_ledger", "share_ledger",
              "inventory_drop", "measured_by"]
    write_csv(out / "deposits.csv", all_rows, fields)
    write_csv(out / "season_totals.csv", all_totals,
              ["condition", "repeat", "season", "phase", "rate", "ledger_total", "chest_delta",
               "attributed", "uncertain_deposits", "match"])
    write_csv(out / "votes.csv", all_votes,
              ["condition", "repeat", "agent", "role", "amendment", "vote", "brain",
               "heuristic_attitude", "opinion"])
    write_jsonl(out / "feedback.jsonl", all_feedback)
    write_jsonl(out / "timeline.jsonl", all_timeline)
    write_csv(out / "skills.csv", all_skills, ledger.SKILL_FIELDS)
    write_csv(out / "windows.csv", all_windows, recompute.WINDOW_FIELDS)

    summary: dict[str, Any] = {}
    series: dict[str, tuple[list[float], list[float]]] = {}
    bands: dict[str, tuple[list[float], list[float]]] = {}
    bar_vals: dict[str, dict[str, float]] = {"before": {}, "after": {}}
    bar_err: dict[str, dict[str, tuple[float, float]]] = {"before": {}, "after": {}}
    for cond, rs in runs.items():
        crow = [r for r in all_rows if r["condition"] == cond]
        per_phase = {}
        for phase in ("before", "after"):
            # unit: an agent's mean share over the phase's seasons (pooled over repeats)
            agent_means: dict[tuple[int, str], list[float]] = defaultdict(list)
            for r in crow:
                if r["phase"] == phase and math.isfinite(r["share"]):
                    agent_means[(r["repeat"], r["agent"])].append(r["share"])
            ci = M.mean_ci([sum(v) / len(v) for v in agent_means.values()], p.confidence, (0, 1))
            per_phase[phase] = {"mean": ci.mean, "ci": [ci.lo, ci.hi], "n_agents": ci.n}
            bar_vals[phase][cond] = ci.mean if math.isfinite(ci.mean) else 0.0
            bar_err[phase][cond] = (ci.lo, ci.hi)
        seasons = sorted({r["season"] for r in crow})
        xs, ys, lo, hi = [], [], [], []
        for k in seasons:
            ci = M.mean_ci([r["share"] for r in crow if r["season"] == k], p.confidence, (0, 1))
            xs.append(float(k + 1))
            ys.append(ci.mean)
            lo.append(ci.lo if math.isfinite(ci.lo) else ci.mean)
            hi.append(ci.hi if math.isfinite(ci.hi) else ci.mean)
        series[cond], bands[cond] = (xs, ys), (lo, hi)
        summary[cond] = {
            "share_deposited": per_phase,
            "tax_rate_after": M.mean_ci([r["rate_after"] for r in rs], p.confidence).mean,
            "runs": rs,
        }
    plot_dir = out / "plots"
    plots.lines(plot_dir / "share_by_season.png", series, bands=bands,
                title="Share of inventory deposited per season (mean, CI)", xlabel="season",
                ylabel="share deposited")
    plots.bars(plot_dir / "share_before_after.png", bar_vals, errors=bar_err,
               title="Share deposited before vs after the amendment", ylabel="share")
    rate_series: dict[str, tuple[list[float], list[float]]] = {}
    for cond in runs:
        ks = sorted({(r["season"], r["rate"]) for r in all_totals if r["condition"] == cond
                     and r["repeat"] == 0})
        rate_series[cond] = ([k + 1.0 for k, _ in ks], [rate for _, rate in ks])
    plots.lines(plot_dir / "tax_rate_by_season.png", rate_series,
                title="Tax rate in force per season (repeat 0)", xlabel="season", ylabel="rate")
    matches = [t["match"] for t in all_totals if t["match"] is not None]
    checks = {
        "seasons_checked": len(matches), "matching": sum(bool(m) for m in matches),
        "seasons_with_uncertain_deposits": sum(1 for t in all_totals if t["uncertain_deposits"]),
    }
    figs = recompute.figures(out)
    measured = {r["measured_by"] for rs in runs.values() for r in rs}
    note = ""
    if measured <= {"perception", "none"}:
        note = ("\n\n**No world**: inventories come from the agents' perception and no chest can "
                "be read, so deposit shares are not measured (n/a). Run with the embedded world "
                "for the real measurement.\n")
    report = note + (
        "\n\nShares: items an agent put into the community chests in a season (measured from the "
        "chests' and inventories' contents through the admin API: each item's chest gain is "
        "shared among the agents who lost that item) / items it held at the opening, constituents "
        "only (influencers are not counted). A repeat's share is the mean over its constituents "
        "of each one's mean over the phase's seasons; the table gives the mean over repeats and "
        f"a {p.confidence:.0%} CI across repeats (n/a with one repeat), clipped to [0, 1]. "
        "`python -m experiments.tax.recompute OUT` recomputes this table from `deposits.csv`, "
        "`timeline.jsonl` and `runs.csv`. Check: the "
        "ledger of successful `deposit` skills matched the chests' gain in "
        f"{checks['matching']} of {checks['seasons_checked']} measured seasons; "
        f"{checks['seasons_with_uncertain_deposits']} season(s) had deposits that failed "
        "part-way or were running while a snapshot was read (their items may be counted in a "
        "chest without being missed in an inventory).\n\n"
    )
    report += (
        "Decisions or bodies: each constituent-season (`deposits.csv` row) is *paid the rate* "
        "(at least the whole items the rate asks of its inventory), *paid less*, *decided not "
        "to pay* (no deposit started in the window), *paid after the season* (a deposit started "
        "in the window succeeded only after the season was measured: the walk was longer than "
        "the window), *tried and failed* (a deposit it started "
        "in the window failed for a reason of its body, given by kind), *started, then "
        "stopped* (it cancelled its deposit, or asked for an item it lacked, or the deposit was "
        "still running at the measurement), *held nothing* or *0% asked*. \"Decided to pay\" "
        "= seasons with a deposit started in the window, \"paid\" = seasons with items "
        "deposited, \"failed\" = tried and failed, each of the seasons something was asked "
        "of; \"unpaid: decided / body failed\" split the seasons that paid nothing. Windows "
        "from `timeline.jsonl`, deposits from `skills.csv` (`experiments/tax/accounts.py`).\n\n"
        + ledger.LEDGER_TEXT +
        "Windows: each window an agent must act in, against the walk from the farthest "
        "agent's home (the square where the server spawns it) to the farthest chest at the "
        "bodies' measured pace plus 2 s at the chest (`experiments/reach.py`); the feedback and "
        "the vote need no walk (the experiment asks each member's policy).\n\n"
    )
    report += (
        "Did the controllers keep their word (table above): from each run's "
        "`runs/<run>/events.jsonl`: `decision_cancelled` (a decision the body was carrying out "
        "dropped, or a preempted one abandoned), `skill_outcome` with `cancelled` (all the body "
        "ended so, split by what replaced it: the controller cancelling it, an urgent perceived "
        "reason preempting it to be resumed, a perceived reason ending an idle wait), "
        "`skill_resumed`, and `deposit` skills started / finished; "
        "agent-hours = agents x wall-clock duration.\n\n"
        "Files: `deposits.csv`, `season_totals.csv`, `votes.csv`, `feedback.jsonl`, "
        "`timeline.jsonl`, `skills.csv` (every skill started and how it ended: the body "
        "ledger), `windows.csv` (each protocol window against the walk it needs), "
        "`constitutions/`, `runs/<run>/democracy.json` (amendments, tally, "
        "every announcement as the agents got it); plots in `plots/`.\n"
    )
    return book.finish("Tax law and a democratic constitution", p, figs,
                       recompute.tables(out, figs), report,
                       {"conditions": summary, "ledger_checks": checks})


def _f(x: Any) -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.3f}"
