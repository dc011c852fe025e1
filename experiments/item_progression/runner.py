"""Item progression: how many unique items do lone explorers acquire over time?

``agents`` explorers are spawned ``spawn_spacing`` blocks apart on a ring (no interaction)
with empty inventories. Each first acquisition of a kind of item is recorded when it happens
(skill outcomes' inventory deltas and the body's item pickups, from the run's event log), and
every ``sample_every_s`` each agent's inventory is read (admin API in the embedded world, else
the agent's perceived inventory) as a cross-check. Outputs: ``acquisitions.csv``,
``items.csv`` (per agent and inventory read), ``metrics.json``, plots and ``report.md``.
"""

from __future__ import annotations

import logging
import math
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import Field

from agent_runtime.clock import Clock
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import Strict, VillageConfig
from agent_runtime.config.names import generate_names
from experiments import common, ledger, plots
from experiments.files import read_events
from experiments.item_progression import recompute
from experiments.runner_base import RunBook, parse_protocol
from experiments.spec import Condition, ExperimentFile, ExperimentOptions, RunSpec

log = logging.getLogger(__name__)


class ItemProtocol(Strict):
    duration_s: float = Field(default=1800.0, gt=0)
    sample_every_s: float = Field(default=30.0, gt=0)
    agents: int = Field(default=25, ge=1)
    spread_spawns: bool = True  # false: everyone spawns at the world's spawn point
    spawn_spacing: float = Field(default=200.0, ge=0)  # blocks between neighbours on the ring
    spawn_y: float = 80.0
    traits: tuple[str, ...] = ()
    confidence: float = Field(default=0.95, gt=0, lt=1)


PROTOCOL_MODEL = ItemProtocol


def spawn_ring(
    n: int, spacing: float, cx: float, cz: float, y: float, turn: float = 0.0
) -> list[dict[str, float]]:
    """``n`` points on a circle whose neighbours are ``spacing`` blocks apart, the first at
    angle ``turn`` (radians; a run's seed turns the ring, so repeats start in other places)."""
    if n == 1:
        return [{"x": cx, "y": y, "z": cz}]
    radius = spacing / (2 * math.sin(math.pi / n))
    return [
        {"x": round(cx + radius * math.cos(turn + 2 * math.pi * i / n), 1), "y": y,
         "z": round(cz + radius * math.sin(turn + 2 * math.pi * i / n), 1)}
        for i in range(n)
    ]


def make_config(p: ItemProtocol, opts: ExperimentOptions) -> Any:
    def build(data: dict[str, Any], cond: Condition, seed: int) -> VillageConfig:
        rng = random.Random(seed)
        n = opts.agents or p.agents
        names = generate_names(n, rng, set(), None)
        layout = data.get("world", {}).get("layout", {})
        spawns = spawn_ring(n, p.spawn_spacing, float(layout.get("centre_x", 0)),
                            float(layout.get("centre_z", 0)), p.spawn_y,
                            turn=rng.uniform(0, 2 * math.pi))
        data["agents"] = [
            {"name": name, "traits": list(p.traits), "inventory": {},
             "spawn_location": s if p.spread_spawns else None}
            for name, s in zip(names, spawns, strict=True)
        ]
        data.pop("agent_templates", None)
        return parse_config(data, f"item_progression/{cond.name}")

    return build


class Acquisitions:
    """The first acquisition of each kind of item by each agent, when it happens: positive
    inventory deltas of skill outcomes (gather, craft, smelt, ...) and the body's
    ``item_picked_up`` events, both seen on the run's event log; a sampled inventory adds any
    kind these missed (e.g. a pickup whose item the body could not name) at the sample's time."""

    def __init__(self, tl: Clock) -> None:
        self.tl = tl
        self.seen: dict[str, set[str]] = defaultdict(set)
        self.rows: list[dict[str, Any]] = []

    def add(self, agent: str, items: Any, source: str) -> None:
        for item in items:
            if item and item not in self.seen[agent]:
                self.seen[agent].add(item)
                self.rows.append({"agent": agent, "t": round(self.tl.protocol(), 3), "item": item,
                                  "source": source, "unique_cumulative": len(self.seen[agent])})

    def on_event(self, record: dict[str, Any]) -> None:
        agent = record.get("agent")
        if not agent:
            return
        if record.get("type") == "skill_outcome":
            delta = record.get("delta") or {}
            skill = str((record.get("call") or {}).get("skill", ""))
            self.add(agent, sorted(k for k, v in delta.items() if v > 0), f"skill:{skill}")
        elif record.get("type") == "body_event" and record.get("kind") == "item_picked_up":
            self.add(agent, [str((record.get("data") or {}).get("item") or "")], "pickup")


async def _one_run(spec: RunSpec, opts: ExperimentOptions, p: ItemProtocol) -> dict[str, Any]:
    import contextlib

    from agent_runtime.state.sections import Perception

    rows: list[dict[str, Any]] = []
    source = {"by": "perception"}
    found: list[Acquisitions] = []

    async def sample(village: Any, acq: Acquisitions, admin: Any) -> None:
        t = round(acq.tl.protocol(), 3)
        if admin is None:
            await common.fresh_state(village)  # agents in workers: their state from Redis
        for name in common.agent_names(village):
            inv: dict[str, int] = {}
            if admin is not None:
                try:
                    for it in await admin.inventory(name):
                        inv[str(it["name"])] = inv.get(str(it["name"]), 0) + int(it["count"])
                except Exception as err:
                    log.warning("inventory of %s: %s", name, err)
            else:
                obs = village.store.agent(name).get("perception", Perception).observation
                inv = dict(obs.inventory)
            acq.add(name, sorted(k for k, v in inv.items() if v > 0), "inventory_sample")
            rows.append({"agent": name, "t": t, "unique_now": len(inv),
                         "unique_cumulative": len(acq.seen[name]),
                         "items": sorted(acq.seen[name])})

    async def during(village: Any, tl: Clock) -> None:
        acq = Acquisitions(tl)
        found.append(acq)
        village.events.add_listener(acq.on_event)
        async with contextlib.AsyncExitStack() as stack:
            admin = None
            if getattr(village.world, "admin_url", None):
                from bots.admin import AdminClient

                admin = await stack.enter_async_context(AdminClient(village.world.admin_url))
                source["by"] = "admin_api"
            k = 0
            while True:
                await tl.until(k * p.sample_every_s)
                await sample(village, acq, admin)
                k += 1

    await common.run_village(spec, opts, p.duration_s, during)
    return {"rows": rows, "acquisitions": [r for a in found for r in a.rows],
            "measured_by": source["by"]}


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: ItemProtocol = parse_protocol(exp, ItemProtocol, out / "config.yaml")
    book = RunBook(exp, opts, out)
    measured: set[str] = set()
    for spec in book.runs(make_config(p, opts)):
        run = await _one_run(spec, opts, p)
        book.done(spec, len(spec.config.agents))
        measured.add(run["measured_by"])
        book.collect(spec, items=run["rows"], acquisitions=run["acquisitions"],
                     skills=ledger.skill_rows(read_events(spec.run_dir)))
    book.write("items", recompute.ITEM_FIELDS)
    book.write("acquisitions", recompute.ACQUISITION_FIELDS)
    book.write("skills", ledger.SKILL_FIELDS)
    figs = recompute.figures(out)
    _plots(out, figs, recompute.read_items(out))
    text = ("\n\nAcquisitions are recorded when they happen (`acquisitions.csv`: the first "
            "time each agent got each kind of item, from skill outcomes' inventory deltas and "
            "the body's item pickups; a kind first seen in an inventory read is recorded at "
            f"that read). Inventories read by: {', '.join(sorted(measured))}, every "
            f"{p.sample_every_s:g} protocol s (`items.csv`: the mean curve with CI). Unique "
            "items = kinds of item an agent has acquired so far; collective = kinds acquired by "
            "any agent of a run. The step curve `plots/unique_items_steps.png` has a step at "
            "every acquisition. Spawns: a ring around the village centre with neighbours "
            f"{p.spawn_spacing:g} blocks apart, turned by each run's seed.\n\nRaw data: "
            "`acquisitions.csv`, `items.csv`, `runs.csv`; `python -m experiments.item_progression.recompute OUT` "
            "recomputes every figure above from them.\n\nPlots: `plots/unique_items_mean.png`, "
            "`plots/unique_items_steps.png`, "
            "`plots/unique_items_collective.png`, `plots/unique_items_agents_<condition>.png`.\n\n"
            + ledger.LEDGER_TEXT + "A smelt, craft or collect that failed for a reason of the "
            "body (\"of them the body's\") is an item the agent decided to make and its body "
            "did not (`skills.csv`).\n")
    return book.finish("Item progression", p, figs, recompute.tables(out, figs), text,
                       {"measured_by": sorted(measured)})


def _plots(out: Path, all_figs: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    figs = ledger.without(all_figs)
    plot_dir = out / "plots"
    plots.lines(plot_dir / "unique_items_steps.png",
                {c: ([x["t"] for x in s["steps"]], [x["mean"] for x in s["steps"]])
                 for c, s in figs.items()},
                title="Unique items per agent (mean), a step at every acquisition",
                xlabel="protocol s", ylabel="unique items")
    series = {c: ([x["t"] for x in s["curve"]], [x["mean"] for x in s["curve"]])
              for c, s in figs.items()}
    bands = {c: ([x["lo"] if math.isfinite(x["lo"]) else x["mean"] for x in s["curve"]],
                 [x["hi"] if math.isfinite(x["hi"]) else x["mean"] for x in s["curve"]])
             for c, s in figs.items()}
    plots.lines(plot_dir / "unique_items_mean.png", series, bands=bands,
                title="Unique items acquired per agent (mean, CI)", xlabel="protocol s",
                ylabel="unique items")
    tot_series: dict[str, tuple[list[float], list[float]]] = {}
    for cond in figs:
        by_t: dict[float, set[str]] = defaultdict(set)
        for r in rows:
            if r["condition"] == cond and r["repeat"] == 0:
                by_t[r["t"]].update(r["items"])
        union: set[str] = set()
        xs, ys = [], []
        for t in sorted(by_t):
            union |= by_t[t]
            xs.append(t)
            ys.append(float(len(union)))
        tot_series[cond] = (xs, ys)
    plots.lines(plot_dir / "unique_items_collective.png", tot_series,
                title="Collective unique items (repeat 0)", xlabel="protocol s",
                ylabel="unique items")
    for cond in figs:
        per_agent: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
        for r in rows:
            if r["condition"] == cond and r["repeat"] == 0:
                per_agent[r["agent"]][0].append(r["t"])
                per_agent[r["agent"]][1].append(r["unique_cumulative"])
        plots.lines(plot_dir / f"unique_items_agents_{cond}.png", dict(per_agent),
                    title=f"Unique items per agent ({cond}, repeat 0)", xlabel="protocol s",
                    ylabel="unique items")
