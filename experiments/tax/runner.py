"""Tax law: do agents follow a constitution they change by vote, and do influencers sway it?

Per run (one condition x one repeat), on the protocol clock (scaled by ``--time-scale``):

- ``first_season_at_s + k * season_period_s``: a tax season opens for ``season_window_s``:
  the world event ``tax_season_open {rate, window_s, season, chests, text}`` is published on
  ``piano/<run>/world/event`` (and, in the embedded world, broadcast as a server message);
  ``tax_season_close`` follows. Inventories and community-chest contents are read through
  the admin API at the opening and ``settle_s`` after the close;
- ``feedback_at_s``: every member gives feedback on the constitution; ``amendments_at_s``:
  the election manager drafts amendments; ``votes_at_s``: members vote yes/no/abstain per
  amendment; then the tally and the rewritten constitution (due by ``tally_by_s``);
- ``distribute_at_s``: the new constitution is published (world event ``constitution``)
  and its rate is used by the following seasons; with ``frozen: true`` the process runs but
  the old constitution stays.

The election manager is played by the experiment (no body, no game actions).
Deposits per agent come from the run's ``skill_outcome`` events (successful ``deposit``
skills in the window: the ledger); the chests' content change checks the ledger's total.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import VillageConfig
from agent_runtime.config.names import generate_names
from experiments import metrics as M
from experiments import plots
from experiments.common import (
    Condition,
    ExperimentFile,
    ExperimentOptions,
    RunSpec,
    Strict,
    Timeline,
    brain_label,
    brains_seen,
    md_table,
    parse_protocol,
    plan_runs,
    read_events,
    report_header,
    run_village,
    write_csv,
    write_json,
    write_jsonl,
)
from experiments.tax.democracy import (
    Constitution,
    Democracy,
    FeedbackOut,
    HeuristicSettings,
    Member,
    MemberContext,
    Vote,
    render_constitution,
)

log = logging.getLogger(__name__)


class Occupation(Strict):
    traits: tuple[str, ...] = ()
    inventory: dict[str, int] = Field(default_factory=dict)


class TaxProtocol(Strict):
    duration_s: float = Field(default=1200.0, gt=0)
    initial_tax_rate: float = Field(default=0.20, ge=0, le=1)
    first_season_at_s: float = Field(default=60.0, ge=0)
    season_period_s: float = Field(default=120.0, gt=0)
    season_window_s: float = Field(default=20.0, gt=0)
    seasons: int = Field(default=10, ge=1)
    settle_s: float = Field(default=3.0, ge=0)
    settle_min_wall_s: float = Field(default=2.0, ge=0)  # walking is not scaled: wait at least this
    feedback_at_s: float = 300.0
    amendments_at_s: float = 360.0
    votes_at_s: float = 420.0
    tally_by_s: float = 480.0
    distribute_at_s: float = 600.0
    constituents: int = Field(default=25, ge=1)
    influencers: int = Field(default=3, ge=0)
    occupations: dict[str, Occupation] = Field(min_length=1)
    constituent_traits: tuple[str, ...] = ()
    influencer_traits: dict[Literal["pro", "anti"], tuple[str, ...]]
    influencer_inventory: dict[str, int] = Field(default_factory=dict)
    constitution_template: str
    give_inventory: bool = False  # embedded world: /give inventories (the runtime does it at spawn)
    announce: bool = True  # embedded world: also broadcast a server message
    confidence: float = Field(default=0.95, gt=0, lt=1)
    heuristic: HeuristicSettings = Field(default_factory=HeuristicSettings)


def roster(p: TaxProtocol, stance: str, seed: int, voters: int | None) -> list[Member]:
    """Influencers first, then constituents with occupations (cycled); names seeded."""
    n_inf, n_con = p.influencers, p.constituents
    if voters is not None:
        n_inf = min(p.influencers, max(1, voters // 3)) if voters > 1 else 0
        n_con = max(1, voters - n_inf)
    rng = random.Random(seed)
    names = generate_names(n_inf + n_con, rng, set(), None)
    occ = list(p.occupations)
    members = [
        Member(names[i], "influencer", "influencer",
               tuple(p.influencer_traits[stance]), 1 if stance == "pro" else -1)  # type: ignore[index]
        for i in range(n_inf)
    ]
    for j in range(n_con):
        o = occ[j % len(occ)]
        members.append(Member(names[n_inf + j], "constituent", o,
                              tuple(p.constituent_traits) + p.occupations[o].traits))
    return members


def make_config(p: TaxProtocol, opts: ExperimentOptions) -> Any:
    def build(data: dict[str, Any], cond: Condition, seed: int) -> VillageConfig:
        stance = str(cond.params.get("influencers", "pro"))
        if stance not in ("pro", "anti"):
            raise ValueError(f"condition {cond.name}: params.influencers must be pro or anti")
        members = roster(p, stance, seed, opts.agents)
        data["agents"] = [
            {
                "name": m.name, "traits": list(m.traits),
                "inventory": dict(p.influencer_inventory if m.role == "influencer"
                                  else p.occupations[m.occupation].inventory),
                "role": f"{m.role}:{stance}" if m.role == "influencer" else m.occupation,
            }
            for m in members
        ]
        data.pop("agent_templates", None)
        return parse_config(data, f"tax/{cond.name}")

    return build


def _members_from(cfg: VillageConfig, p: TaxProtocol) -> list[Member]:
    out = []
    for a in cfg.agents:
        role = a.role or ""
        if role.startswith("influencer"):
            out.append(Member(a.name, "influencer", "influencer", a.traits,
                              1 if role.endswith(":pro") else -1))
        else:
            out.append(Member(a.name, "constituent", role, a.traits))
    return out


class _Run:
    """The protocol of one run; everything it records ends up in the run's files."""

    def __init__(self, spec: RunSpec, p: TaxProtocol) -> None:
        self.spec = spec
        self.p = p
        self.frozen = bool(spec.condition.params.get("frozen", False))
        self.members = _members_from(spec.config, p)
        self.timeline: list[dict[str, Any]] = []
        self.seasons: list[dict[str, Any]] = []  # one per season: times, rate, snapshots
        self.feedback: list[dict[str, Any]] = []
        self.votes: list[dict[str, Any]] = []
        self.amendments: list[dict[str, Any]] = []
        self.tally: dict[str, Any] = {}
        v0 = Constitution(version=0, tax_rate=p.initial_tax_rate,
                          text=render_constitution(p.constitution_template, p.initial_tax_rate))
        self.constitutions: list[Constitution] = [v0]
        self.in_force = v0
        self.measured_by = "none"
        self.chests: list[tuple[int, int, int]] = []

    def mark(self, tl: Timeline, event: str, planned: float, **data: Any) -> None:
        rec = {"event": event, "planned_t": planned, "t": round(tl.now(), 3),
               "wall": round(time.time(), 4), **data}
        self.timeline.append(rec)

    # --- world access ----------------------------------------------------------------
    async def _publish(self, village: Any, payload: dict[str, Any], admin: Any) -> None:
        from agent_runtime.bus import topics

        await village.bus.publish(topics.world(village.run_id, "event"), payload)
        village.events.emit("world_event", **payload)
        text = payload.get("text")
        if admin is not None and self.p.announce and text:
            try:
                await admin.broadcast(str(text))
            except Exception as err:  # the measurement goes on without the message
                log.warning("broadcast failed: %s", err)

    async def _snapshot(self, village: Any, admin: Any) -> dict[str, Any]:
        from agent_runtime.state.sections import Perception

        inv: dict[str, dict[str, int]] = {}
        chest: dict[str, int] | None = None
        if admin is not None:
            for m in self.members:
                try:
                    items = await admin.inventory(m.name)
                except Exception as err:
                    log.warning("inventory of %s: %s", m.name, err)
                    continue
                c: Counter[str] = Counter()
                for it in items:
                    c[str(it["name"])] += int(it["count"])
                inv[m.name] = dict(c)
            chest_c: Counter[str] = Counter()
            for x, y, z in self.chests:
                for it in await admin.chest(x, y, z):
                    chest_c[str(it["name"])] += int(it["count"])
            chest = dict(chest_c)
        else:
            for m in self.members:
                obs = village.store.agent(m.name).get("perception", Perception).observation
                inv[m.name] = dict(obs.inventory)
        return {"inventory": inv, "chest": chest}

    def _context(self, village: Any, name: str) -> MemberContext:
        from agent_runtime.state.sections import Conversation, Goals, Social, WorkingMemory

        st = village.store.agent(name)
        conv = st.get("conversation", Conversation)
        social = st.get("social", Social)
        wm = st.get("working_memory", WorkingMemory)
        return MemberContext(
            goal=st.get("goals", Goals).current,
            memory=[i.text for i in wm.items],
            heard=[(u.speaker, u.text) for u in conv.lines if u.speaker != name],
            interactions={k: v.interactions for k, v in social.people.items()},
        )

    # --- the protocol -------------------------------------------------------------------
    async def during(self, village: Any, tl: Timeline) -> None:
        import contextlib

        p = self.p
        admin = None
        async with contextlib.AsyncExitStack() as stack:
            server = getattr(village.world, "server", None)
            if server is not None and getattr(village.world, "admin_url", None):
                from bots.admin import AdminClient

                admin = await stack.enter_async_context(AdminClient(village.world.admin_url))
                self.chests = [tuple(int(v) for v in c) for c in server.community_chests]  # type: ignore[misc]
                self.measured_by = "admin_api"
                if p.give_inventory:
                    for a in self.spec.config.agents:
                        for item, n in a.inventory.items():
                            await admin.command(f"/give {a.name} {item} {n}")
            else:
                self.measured_by = "perception"
            rng = random.Random(self.spec.seed ^ 0x7A5)
            demo = Democracy(
                village.services.llm, rng, p.heuristic,
                {m.name: m.stance for m in self.members if m.role == "influencer"},
                p.constitution_template,
            )
            steps: list[tuple[float, int, str, int]] = []
            for k in range(p.seasons):
                t_open = p.first_season_at_s + k * p.season_period_s
                steps.append((t_open, 1, "season_open", k))
                steps.append((t_open + p.season_window_s, 0, "season_close", k))
                settle = max(p.settle_s, tl.scale and p.settle_min_wall_s / tl.scale)
                settle = min(settle, p.season_period_s - p.season_window_s - 1e-3,
                             max(0.0, p.duration_s - t_open - p.season_window_s - 1e-3))
                steps.append((t_open + p.season_window_s + settle, 0, "season_measure", k))
            steps += [(p.feedback_at_s, 0, "feedback", -1), (p.amendments_at_s, 0, "amendments", -1),
                      (p.votes_at_s, 0, "votes", -1), (p.distribute_at_s, 0, "distribute", -1)]
            steps.sort()  # at equal times the distribution (0) comes before an opening (1)
            pending: Constitution | None = None
            drafts: list[Any] = []
            feedback: dict[str, FeedbackOut] = {}
            for t, _, what, k in steps:
                if t > p.duration_s:
                    continue
                await tl.until(t)
                if what == "season_open":
                    snap = await self._snapshot(village, admin)
                    rate = self.in_force.tax_rate
                    season = {"season": k, "rate": rate, "open_wall": time.time(),
                              "phase": "before" if t < p.distribute_at_s else "after",
                              "constitution": self.in_force.version, "open": snap}
                    self.seasons.append(season)
                    chests = [list(c) for c in self.chests]
                    await self._publish(village, {
                        "kind": "tax_season_open", "season": k, "rate": rate,
                        "window_s": tl.seconds(p.season_window_s), "chests": chests,
                        "text": f"Tax season {k + 1} is open: deposit {round(rate * 100)}% of "
                                "your inventory into the community chests in the town hall.",
                    }, admin)
                    self.mark(tl, "season_open", t, season=k, rate=rate)
                elif what == "season_close":
                    await self._publish(village, {"kind": "tax_season_close", "season": k,
                                                  "text": f"Tax season {k + 1} is closed."}, admin)
                    self.seasons[-1]["close_wall"] = time.time()
                    self.mark(tl, "season_close", t, season=k)
                elif what == "season_measure":
                    self.seasons[-1]["close"] = await self._snapshot(village, admin)
                    self.seasons[-1]["measure_wall"] = time.time()
                    self.mark(tl, "season_measure", t, season=k)
                elif what == "feedback":
                    for m in self.members:
                        out, brain, att = await demo.feedback(
                            m, self._context(village, m.name), self.in_force)
                        feedback[m.name] = out
                        self.feedback.append({"agent": m.name, "role": m.role, "brain": brain,
                                              "attitude": att, **out.model_dump()})
                    self.mark(tl, "feedback", t, n=len(feedback))
                elif what == "amendments":
                    drafts, brain = await demo.amendments(self.in_force, feedback)
                    self.amendments = [{"number": i + 1, "brain": brain, **d.model_dump()}
                                       for i, d in enumerate(drafts)]
                    self.mark(tl, "amendments", t, n=len(drafts), brain=brain)
                elif what == "votes":
                    ballots: dict[str, list[Vote]] = {}
                    for m in self.members:
                        votes, brain, att = await demo.vote(
                            m, self._context(village, m.name), self.in_force, drafts)
                        ballots[m.name] = votes
                        for i, v in enumerate(votes):
                            self.votes.append({"agent": m.name, "role": m.role, "amendment": i + 1,
                                               "vote": v, "brain": brain, "attitude": att})
                    self.mark(tl, "votes", t, n=len(ballots))
                    passed, counted, brain = await demo.tally(drafts, ballots)
                    self.tally = {"passed": passed, "counted": counted, "brain": brain,
                                  "agrees_with_count": passed == counted}
                    self.mark(tl, "tally", p.tally_by_s, passed=passed, brain=brain)
                    pending = await demo.rewrite(self.in_force, drafts, passed)
                    self.constitutions.append(pending)
                    self.mark(tl, "constitution_rewritten", p.tally_by_s,
                              version=pending.version, rate=pending.tax_rate, brain=pending.brain)
                elif what == "distribute":
                    if pending is not None and not self.frozen:
                        self.in_force = pending
                    await self._publish(village, {
                        "kind": "constitution", "version": self.in_force.version,
                        "tax_rate": self.in_force.tax_rate, "frozen": self.frozen,
                        "text": "The constitution now reads: " + self.in_force.text,
                    }, admin)
                    self.mark(tl, "distribute", t, version=self.in_force.version,
                              rate=self.in_force.tax_rate, frozen=self.frozen)


    async def after(self, village: Any, tl: Timeline) -> None:
        """A measurement the end of the run cut short is taken now."""
        import contextlib

        if not self.seasons or "close" in self.seasons[-1]:
            return
        async with contextlib.AsyncExitStack() as stack:
            admin = None
            if self.measured_by == "admin_api":
                from bots.admin import AdminClient

                admin = await stack.enter_async_context(AdminClient(village.world.admin_url))
            self.seasons[-1]["close"] = await self._snapshot(village, admin)
            self.seasons[-1]["measure_wall"] = time.time()
            self.mark(tl, "season_measure", tl.now(), season=self.seasons[-1]["season"],
                      late=True)


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


def uncertain_deposits(events: list[dict[str, Any]], seasons: list[dict[str, Any]]) -> Counter[int]:
    """Season -> deposits that failed part-way (cancelled, timed out, a rejected transaction):
    items may have moved although the skill reported a failure."""
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


def season_rows(run: _Run, events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
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


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: TaxProtocol = parse_protocol(exp, TaxProtocol, out / "config.yaml")
    all_rows: list[dict[str, Any]] = []
    all_totals: list[dict[str, Any]] = []
    all_votes: list[dict[str, Any]] = []
    all_feedback: list[dict[str, Any]] = []
    all_timeline: list[dict[str, Any]] = []
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    brains: Counter[str] = Counter()
    configured = ""
    for spec in plan_runs(exp, opts, out, make_config(p, opts)):
        configured = brain_label(spec.config)
        if opts.progress:
            opts.progress(f"run {spec.label} ({len(spec.config.agents)} agents)")
        run = _Run(spec, p)
        await run_village(spec, opts, p.duration_s, run.during, run.after)
        events = read_events(spec.run_dir)
        brains.update(brains_seen(events))
        rows, totals = season_rows(run, events)
        tag = {"condition": spec.condition.name, "repeat": spec.repeat}
        all_rows += [{**tag, **r} for r in rows]
        all_totals += [{**tag, **r} for r in totals]
        all_votes += [{**tag, **v} for v in run.votes]
        all_feedback += [{**tag, **f} for f in run.feedback]
        all_timeline += [{**tag, **t} for t in run.timeline]
        cdir = out / "constitutions"
        cdir.mkdir(parents=True, exist_ok=True)
        for c in run.constitutions:
            (cdir / f"{spec.label}_v{c.version}.md").write_text(
                f"<!-- tax rate {c.tax_rate}; brain {c.brain} -->\n{c.text}\n", encoding="utf-8")
        write_json(spec.run_dir / "democracy.json", {
            "amendments": run.amendments, "tally": run.tally,
            "constitutions": [c.model_dump() for c in run.constitutions],
            "in_force_after": run.in_force.model_dump(), "frozen": run.frozen,
        })
        before = [r["share"] for r in rows if r["phase"] == "before"]
        after = [r["share"] for r in rows if r["phase"] == "after"]
        runs[spec.condition.name].append({
            "repeat": spec.repeat, "rate_before": p.initial_tax_rate,
            "rate_after": run.in_force.tax_rate, "amendments": run.amendments,
            "tally": run.tally, "mean_share_before": M.mean_ci(before).mean,
            "mean_share_after": M.mean_ci(after).mean, "measured_by": run.measured_by,
            "ledger_matches_chests": all(t["match"] for t in totals if t["match"] is not None),
            "seasons_measured": len(totals),
        })
    fields = ["condition", "repeat", "season", "phase", "rate", "agent", "role", "inventory_open",
              "inventory_close", "deposited", "share", "deposited_ledger", "share_ledger",
              "inventory_drop", "measured_by"]
    write_csv(out / "deposits.csv", all_rows, fields)
    write_csv(out / "season_totals.csv", all_totals,
              ["condition", "repeat", "season", "phase", "rate", "ledger_total", "chest_delta",
               "attributed", "uncertain_deposits", "match"])
    write_csv(out / "votes.csv", all_votes,
              ["condition", "repeat", "agent", "role", "amendment", "vote", "brain", "attitude"])
    write_jsonl(out / "feedback.jsonl", all_feedback)
    write_jsonl(out / "timeline.jsonl", all_timeline)

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
    metrics = {
        "experiment": exp.experiment, "brain": configured, "brains_seen": dict(brains),
        "time_scale": opts.time_scale, "protocol": p.model_dump(), "conditions": summary,
        "ledger_checks": checks,
    }
    write_json(out / "metrics.json", metrics)

    paper = exp.paper
    table = md_table(
        ["condition", "share before", "CI", "share after", "CI", "rate after", "paper"],
        [
            (c, s["share_deposited"]["before"]["mean"],
             "[" + ", ".join(_f(x) for x in s["share_deposited"]["before"]["ci"]) + "]",
             s["share_deposited"]["after"]["mean"],
             "[" + ", ".join(_f(x) for x in s["share_deposited"]["after"]["ci"]) + "]",
             s["tax_rate_after"], str(paper.get(c, "")))
            for c, s in summary.items()
        ],
    )
    measured = {r["measured_by"] for rs in runs.values() for r in rs}
    note = ""
    if measured <= {"perception", "none"}:
        note = ("\n\n**No world**: inventories come from the agents' perception and no chest can "
                "be read, so deposit shares are not measured (n/a). Run with the embedded world "
                "for the real measurement.\n")
    report = report_header("Tax law and a democratic constitution", exp, opts, brains, configured)
    report += table + note + (
        "\n\nShares: items an agent put into the community chests in a season (measured from the "
        "chests' and inventories' contents through the admin API: each item's chest gain is "
        "shared among the agents who lost that item) / items it held at the opening; CI "
        f"{p.confidence:.0%} over agents (each agent's mean over the phase's seasons), clipped to "
        "[0, 1]. Check: the "
        "ledger of successful `deposit` skills matched the chests' gain in "
        f"{checks['matching']} of {checks['seasons_checked']} measured seasons; "
        f"{checks['seasons_with_uncertain_deposits']} season(s) had deposits that failed "
        "part-way (they may move items without reporting it).\n\n"
        "Files: `deposits.csv`, `season_totals.csv`, `votes.csv`, `feedback.jsonl`, "
        "`timeline.jsonl`, `constitutions/`, `runs/<run>/democracy.json`; plots in `plots/`.\n"
    )
    (out / "report.md").write_text(report, encoding="utf-8")
    return metrics


def _f(x: Any) -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.3f}"
