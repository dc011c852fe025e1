"""The tax law protocol of one run, on the protocol clock (scaled by ``--time-scale``).

- ``constitution_at_s``: the constitution is announced (and again whenever it changes);
- ``first_season_at_s + k * season_period_s``: a tax season opens for ``season_window_s``:
  an announcement names the season, the percentage, the seconds it is open and the chests'
  coordinates; another one closes it. Inventories and community-chest contents are read
  through the admin API at the opening and ``settle_s`` after the close;
- ``feedback_at_s``: every member gives feedback on the constitution; ``amendments_at_s``:
  the election manager drafts amendments; ``votes_at_s``: members vote yes/no/abstain per
  amendment; then the tally and the rewritten constitution (due by ``tally_by_s``);
- ``distribute_at_s``: the new constitution is announced and its rate is asked for in the
  following seasons; with ``frozen: true`` the process runs but the old constitution stays.

Agents learn all of this only from the announcements (``kind: announcement``: speaker, text,
time) and from the chest positions in their own location memories. The rate, the windows,
the chests and the roster stay in this object (the experiment's ledger). The election
manager is played by the experiment (no body, no game actions).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from pydantic import Field, model_validator

from agent_runtime.clock import Clock, wall_time
from agent_runtime.config.game_names import Inventory
from agent_runtime.config.models import Strict
from experiments import reach
from experiments.common import fresh_state
from experiments.spec import RunSpec
from experiments.tax.announcements import (
    Chest,
    announcement,
    constitution_text,
    season_close_text,
    season_open_text,
)
from experiments.tax.democracy import (
    Constitution,
    Democracy,
    FeedbackOut,
    HeuristicSettings,
    Vote,
    VoteView,
    attitude,
    render_constitution,
)
from experiments.tax.roster import Member
from experiments.tax.views import member_view

log = logging.getLogger(__name__)


class Occupation(Strict):
    traits: tuple[str, ...] = ()
    inventory: Inventory = Field(default_factory=dict)


class TaxProtocol(Strict):
    duration_s: float = Field(default=1200.0, gt=0)
    initial_tax_rate: float = Field(default=0.20, ge=0, le=1)
    constitution_at_s: float = Field(default=0.0, ge=0)
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
    influencer_traits: dict[str, tuple[str, ...]]  # condition param "influencers" -> traits
    influencer_inventory: Inventory = Field(default_factory=dict)
    constitution_template: str
    announcer: str = Field(default="Council", min_length=1, max_length=40)
    give_inventory: bool = False  # embedded world: /give inventories (the runtime does it at spawn)
    broadcast: bool = False  # embedded world: also a server chat line (agents then hear it twice)
    confidence: float = Field(default=0.95, gt=0, lt=1)
    # where members live: occupation (or "influencer") -> (dx, dz) offset from the village
    # centre where they spawn, at home_y (they fall to the ground); a member whose occupation
    # is not listed spawns on the village square, ~21 blocks from the town hall's chests
    homes: dict[str, tuple[float, float]] = Field(default_factory=dict)
    home_y: float = 80.0
    heuristic: HeuristicSettings = Field(default_factory=HeuristicSettings)

    @model_validator(mode="after")
    def _homes_known(self) -> TaxProtocol:
        unknown = sorted(set(self.homes) - set(self.occupations) - {"influencer"})
        if unknown:
            raise ValueError(f"homes: unknown occupation(s) {unknown}; use "
                             f"{sorted(self.occupations)} or 'influencer'")
        return self


class TaxRun:
    """The protocol of one run; everything it records ends up in the run's files."""

    def __init__(self, spec: RunSpec, p: TaxProtocol, members: list[Member],
                 chests: list[Chest]) -> None:
        self.spec = spec
        self.p = p
        self.frozen = bool(spec.condition.params.get("frozen", False))
        self.members = members
        self.chests = chests  # planned; replaced by the embedded server's own list
        self.chests_planned = list(chests)
        self.timeline: list[dict[str, Any]] = []
        self.seasons: list[dict[str, Any]] = []  # one per season: times, rate, snapshots
        self.announced: list[dict[str, Any]] = []
        self.feedback: list[dict[str, Any]] = []
        self.votes: list[dict[str, Any]] = []
        self.amendments: list[dict[str, Any]] = []
        self.tally: dict[str, Any] = {}
        v0 = Constitution(version=0, tax_rate=p.initial_tax_rate,
                          text=render_constitution(p.constitution_template, p.initial_tax_rate))
        self.constitutions: list[Constitution] = [v0]
        self.in_force = v0
        self.told_constitution = ""  # the constitution text as last announced
        self.measured_by = "none"
        self.windows: list[dict[str, Any]] = []  # does each protocol window fit the world?

    def mark(self, tl: Clock, event: str, planned: float, **data: Any) -> None:
        self.timeline.append({"event": event, "planned_t": planned, "t": round(tl.protocol(), 3),
                              "wall": round(wall_time(), 4), **data})

    # --- world access ----------------------------------------------------------------
    async def _announce(self, village: Any, tl: Clock, text: str, admin: Any) -> None:
        from agent_runtime.bus import topics
        from agent_runtime.bus.messages import WorldEvent

        payload = announcement(self.p.announcer, text, wall_time())
        await village.bus.publish(
            topics.world(village.run_id, "event"), WorldEvent.model_validate(payload)
        )
        village.events.emit("world_event", **payload)
        self.announced.append({"t": round(tl.protocol(), 3), **payload})
        if admin is not None and self.p.broadcast:
            try:
                await admin.broadcast(text)
            except Exception as err:  # the measurement goes on without the message
                log.warning("broadcast failed: %s", err)

    async def _snapshot(self, village: Any, admin: Any) -> dict[str, Any]:
        from collections import Counter

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
            await fresh_state(village)  # agents in workers: their state from Redis
            for m in self.members:
                obs = village.store.agent(m.name).get("perception", Perception).observation
                inv[m.name] = dict(obs.inventory)
        return {"inventory": inv, "chest": chest}

    def _steps(self, tl: Clock) -> list[tuple[float, int, str, int]]:
        p = self.p
        steps: list[tuple[float, int, str, int]] = [(p.constitution_at_s, -1, "constitution", -1)]
        for k in range(p.seasons):
            t_open = p.first_season_at_s + k * p.season_period_s
            steps.append((t_open, 1, "season_open", k))
            steps.append((t_open + p.season_window_s, 0, "season_close", k))
            settle = max(p.settle_s, tl.time_scale and p.settle_min_wall_s / tl.time_scale)
            settle = min(settle, p.season_period_s - p.season_window_s - 1e-3,
                         max(0.0, p.duration_s - t_open - p.season_window_s - 1e-3))
            steps.append((t_open + p.season_window_s + settle, 0, "season_measure", k))
        steps += [(p.feedback_at_s, 0, "feedback", -1), (p.amendments_at_s, 0, "amendments", -1),
                  (p.votes_at_s, 0, "votes", -1), (p.distribute_at_s, 0, "distribute", -1)]
        steps.sort()  # at equal times the distribution (0) comes before an opening (1)
        return [s for s in steps if s[0] <= p.duration_s]

    # --- the protocol -------------------------------------------------------------------
    async def during(self, village: Any, tl: Clock) -> None:
        p = self.p
        admin = None
        async with contextlib.AsyncExitStack() as stack:
            server = getattr(village.world, "server", None)
            if server is not None and getattr(village.world, "admin_url", None):
                from bots.admin import AdminClient

                admin = await stack.enter_async_context(AdminClient(village.world.admin_url))
                real = [(int(x), int(y), int(z)) for x, y, z in server.community_chests]
                if real != self.chests_planned:
                    log.warning("community chests at %s, not at %s as the agents were told",
                                real, self.chests_planned)
                self.chests = real
                self.measured_by = "admin_api"
                if p.give_inventory:
                    for a in self.spec.config.agents:
                        for item, n in a.inventory.items():
                            await admin.command(f"/give {a.name} {item} {n}")
            else:
                self.measured_by = "perception"
            self._check_windows(village, tl)
            demo = Democracy(village.services.llm, p.heuristic, p.constitution_template,
                             self.spec.seed ^ 0x7A5)
            pending: Constitution | None = None
            drafts: list[Any] = []
            feedback: dict[str, FeedbackOut] = {}
            for t, _, what, k in self._steps(tl):
                await tl.until(t)
                if what == "constitution":
                    await self._tell_constitution(village, tl, admin)
                    self.mark(tl, "constitution", t, version=self.in_force.version)
                elif what == "season_open":
                    began = wall_time()
                    snap = await self._snapshot(village, admin)
                    rate = self.in_force.tax_rate
                    window = tl.scaled(p.season_window_s)
                    self.seasons.append({
                        "season": k, "rate": rate, "open_wall": wall_time(), "window_s": window,
                        "open_snapshot": (began, wall_time()),
                        "phase": "before" if t < p.distribute_at_s else "after",
                        "constitution": self.in_force.version, "open": snap,
                        "chests": [list(c) for c in self.chests],
                    })
                    await self._announce(
                        village, tl, season_open_text(k + 1, rate, window, self.chests), admin)
                    self.mark(tl, "season_open", t, season=k, rate=rate,
                              open_wall=round(self.seasons[-1]["open_wall"], 4))
                elif what == "season_close":
                    await self._announce(village, tl, season_close_text(k + 1), admin)
                    self.seasons[-1]["close_wall"] = wall_time()
                    self.mark(tl, "season_close", t, season=k)
                elif what == "season_measure":
                    await self._measure(village, admin)
                    self.mark(tl, "season_measure", t, season=k)
                elif what == "feedback":
                    feedback = await self._feedback(village, demo)
                    self.mark(tl, "feedback", t, n=len(feedback))
                elif what == "amendments":
                    drafts, brain = await demo.amendments(self.in_force, feedback)
                    self.amendments = [{"number": i + 1, "brain": brain, **d.model_dump()}
                                       for i, d in enumerate(drafts)]
                    self.mark(tl, "amendments", t, n=len(drafts), brain=brain)
                elif what == "votes":
                    ballots = await self._votes(village, demo, drafts)
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
                    changed = pending is not None and not self.frozen and (
                        pending.text != self.in_force.text)
                    if pending is not None and not self.frozen:
                        self.in_force = pending
                    if changed:
                        await self._tell_constitution(village, tl, admin)
                    self.mark(tl, "distribute", t, version=self.in_force.version,
                              rate=self.in_force.tax_rate, frozen=self.frozen, announced=changed)

    def _check_windows(self, village: Any, tl: Clock) -> None:
        """Does a season's window fit the walk from the agents' homes to the chests at this
        time scale (:mod:`experiments.reach`)? A warning (log + ``protocol_window_short``
        event) for each that does not; the rows go to ``windows.csv`` and the report."""
        no_walk = "decided from the member's own view by the democracy policy: no body action"
        checked = reach.check([
            reach.Window("tax season", tl.scaled(self.p.season_window_s),
                         tuple((float(x), float(z)) for x, _, z in self.chests)),
            reach.Window("feedback", 0.0, (), note=no_walk),
            reach.Window("vote", 0.0, (), note=no_walk),
        ], self.spec.config)
        self.windows = [w.as_row() for w in checked]
        for w in reach.shortfalls(checked):
            log.warning("protocol window too short for the world at time scale %s: %s: %s",
                        tl.time_scale, w.name, w.note)
            village.events.emit("protocol_window_short", window=w.name, wall_s=w.wall_s,
                                 walk_s=w.walk_s, note=w.note, time_scale=tl.time_scale)

    async def _measure(self, village: Any, admin: Any) -> None:
        began = wall_time()
        self.seasons[-1]["close"] = await self._snapshot(village, admin)
        self.seasons[-1]["measure_wall"] = wall_time()
        self.seasons[-1]["close_snapshot"] = (began, self.seasons[-1]["measure_wall"])

    async def _tell_constitution(self, village: Any, tl: Clock, admin: Any) -> None:
        self.told_constitution = constitution_text(self.in_force.text)
        await self._announce(village, tl, self.told_constitution, admin)

    async def _feedback(self, village: Any, demo: Democracy) -> dict[str, FeedbackOut]:
        out: dict[str, FeedbackOut] = {}
        await fresh_state(village)  # the members' views: their state (from Redis with workers)
        for m in self.members:
            view = await member_view(village, m.name, self.told_constitution, self.p.heuristic)
            fb, brain = await demo.feedback(view)
            out[m.name] = fb
            self.feedback.append({
                "agent": m.name, "role": m.role, "brain": brain,
                "heuristic_attitude": round(attitude(view, self.p.heuristic), 4),
                "opinion": view.opinion, "heard_lines": len(view.heard),
                "memories": len(view.memories), **fb.model_dump(),
            })
        return out

    async def _votes(self, village: Any, demo: Democracy, drafts: list[Any]) -> dict[str, list[Vote]]:
        ballots: dict[str, list[Vote]] = {}
        texts = tuple(d.text for d in drafts)
        await fresh_state(village)
        for m in self.members:
            if m.role != "constituent":
                continue  # influencers do not vote (paper: only the constituents vote and pay)
            view = await member_view(village, m.name, self.told_constitution, self.p.heuristic)
            vview = VoteView.model_validate({**view.model_dump(), "amendments": texts})
            votes, brain = await demo.vote(vview)
            ballots[m.name] = votes
            att = round(attitude(view, self.p.heuristic), 4)
            for i, v in enumerate(votes):
                self.votes.append({"agent": m.name, "role": m.role, "amendment": i + 1,
                                   "vote": v, "brain": brain, "heuristic_attitude": att,
                                   "opinion": view.opinion})
        return ballots

    async def after(self, village: Any, tl: Clock) -> None:
        """A measurement the end of the run cut short is taken now."""
        if not self.seasons or "close" in self.seasons[-1]:
            return
        async with contextlib.AsyncExitStack() as stack:
            admin = None
            if self.measured_by == "admin_api":
                from bots.admin import AdminClient

                admin = await stack.enter_async_context(AdminClient(village.world.admin_url))
            await self._measure(village, admin)
            self.mark(tl, "season_measure", tl.protocol(), season=self.seasons[-1]["season"],
                      late=True)
