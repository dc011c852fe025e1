"""Item progression: how many unique items do lone explorers acquire over time?

``agents`` explorers are spawned ``spawn_spacing`` blocks apart on a ring (no interaction)
with empty inventories. Every ``sample_every_s`` each agent's inventory is read (admin API
in the embedded world, else the agent's perceived inventory) and the set of item kinds it
has ever held grows. Outputs: ``items.csv`` (per agent over time), ``totals.csv`` (collective
unique items over time), ``metrics.json``, plots and ``report.md``.
"""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

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


def spawn_ring(n: int, spacing: float, cx: float, cz: float, y: float) -> list[dict[str, float]]:
    """``n`` points on a circle whose neighbours are ``spacing`` blocks apart."""
    if n == 1:
        return [{"x": cx, "y": y, "z": cz}]
    radius = spacing / (2 * math.sin(math.pi / n))
    return [
        {"x": round(cx + radius * math.cos(2 * math.pi * i / n), 1), "y": y,
         "z": round(cz + radius * math.sin(2 * math.pi * i / n), 1)}
        for i in range(n)
    ]


def make_config(p: ItemProtocol, opts: ExperimentOptions) -> Any:
    def build(data: dict[str, Any], cond: Condition, seed: int) -> VillageConfig:
        import random

        n = opts.agents or p.agents
        names = generate_names(n, random.Random(seed), set(), None)
        layout = data.get("world", {}).get("layout", {})
        spawns = spawn_ring(n, p.spawn_spacing, float(layout.get("centre_x", 0)),
                            float(layout.get("centre_z", 0)), p.spawn_y)
        data["agents"] = [
            {"name": name, "traits": list(p.traits), "inventory": {},
             "spawn_location": s if p.spread_spawns else None}
            for name, s in zip(names, spawns, strict=True)
        ]
        data.pop("agent_templates", None)
        return parse_config(data, f"item_progression/{cond.name}")

    return build


async def _one_run(spec: RunSpec, opts: ExperimentOptions, p: ItemProtocol) -> dict[str, Any]:
    import contextlib

    from agent_runtime.state.sections import Perception

    rows: list[dict[str, Any]] = []
    seen: dict[str, set[str]] = defaultdict(set)
    source = {"by": "perception"}

    async def sample(village: Any, tl: Timeline, admin: Any) -> None:
        t = round(tl.now(), 3)
        for name in village.agents:
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
            seen[name].update(k for k, v in inv.items() if v > 0)
            rows.append({"agent": name, "t": t, "unique_now": len(inv),
                         "unique_cumulative": len(seen[name]), "items": sorted(seen[name])})

    async def during(village: Any, tl: Timeline) -> None:
        async with contextlib.AsyncExitStack() as stack:
            admin = None
            if getattr(village.world, "admin_url", None):
                from bots.admin import AdminClient

                admin = await stack.enter_async_context(AdminClient(village.world.admin_url))
                source["by"] = "admin_api"
            k = 0
            while True:
                await tl.until(k * p.sample_every_s)
                await sample(village, tl, admin)
                k += 1

    await run_village(spec, opts, p.duration_s, during)
    events = read_events(spec.run_dir)
    return {"rows": rows, "brains": brains_seen(events), "measured_by": source["by"]}


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: ItemProtocol = parse_protocol(exp, ItemProtocol, out / "config.yaml")
    all_rows: list[dict[str, Any]] = []
    totals: list[dict[str, Any]] = []
    brains: Counter[str] = Counter()
    configured = ""
    finals: dict[str, list[float]] = defaultdict(list)
    collective: dict[str, list[float]] = defaultdict(list)
    curves: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    measured: set[str] = set()
    for spec in plan_runs(exp, opts, out, make_config(p, opts)):
        configured = brain_label(spec.config)
        if opts.progress:
            opts.progress(f"run {spec.label} ({len(spec.config.agents)} agents)")
        run = await _one_run(spec, opts, p)
        brains.update(run["brains"])
        measured.add(run["measured_by"])
        cond = spec.condition.name
        tag = {"condition": cond, "repeat": spec.repeat}
        all_rows += [{**tag, **r} for r in run["rows"]]
        by_t: dict[float, list[dict[str, Any]]] = defaultdict(list)
        for r in run["rows"]:
            by_t[r["t"]].append(r)
        union: set[str] = set()
        for i, t in enumerate(sorted(by_t)):
            for r in by_t[t]:
                union.update(r["items"])
                curves[cond][i].append(r["unique_cumulative"])
            totals.append({**tag, "sample": i, "t": t, "collective_unique": len(union)})
        last: dict[str, int] = {}
        for r in run["rows"]:
            last[r["agent"]] = r["unique_cumulative"]
        finals[cond] += [float(v) for v in last.values()]
        collective[cond].append(float(len(union)))
    write_csv(out / "items.csv", all_rows,
              ["condition", "repeat", "agent", "t", "unique_now", "unique_cumulative", "items"])
    write_csv(out / "totals.csv", totals,
              ["condition", "repeat", "sample", "t", "collective_unique"])

    summary: dict[str, Any] = {}
    series: dict[str, tuple[list[float], list[float]]] = {}
    bands: dict[str, tuple[list[float], list[float]]] = {}
    for cond, vals in finals.items():
        ci = M.mean_ci(vals, p.confidence, (0, math.inf))
        summary[cond] = {
            "mean_unique_items": ci.mean, "ci": [ci.lo, ci.hi], "agents": ci.n,
            "min": min(vals) if vals else math.nan, "max": max(vals) if vals else math.nan,
            "collective_unique_mean": M.mean_ci(collective[cond]).mean,
        }
        xs, ys, lo, hi = [], [], [], []
        for i in sorted(curves[cond]):
            c = M.mean_ci(curves[cond][i], p.confidence, (0, math.inf))
            xs.append(i * p.sample_every_s)
            ys.append(c.mean)
            lo.append(c.lo if math.isfinite(c.lo) else c.mean)
            hi.append(c.hi if math.isfinite(c.hi) else c.mean)
        series[cond], bands[cond] = (xs, ys), (lo, hi)
    plot_dir = out / "plots"
    plots.lines(plot_dir / "unique_items_mean.png", series, bands=bands,
                title="Unique items acquired per agent (mean, CI)", xlabel="protocol s",
                ylabel="unique items")
    tot_series: dict[str, tuple[list[float], list[float]]] = {}
    for cond in finals:
        pts = [r for r in totals if r["condition"] == cond and r["repeat"] == 0]
        tot_series[cond] = ([r["sample"] * p.sample_every_s for r in pts],
                            [r["collective_unique"] for r in pts])
    plots.lines(plot_dir / "unique_items_collective.png", tot_series,
                title="Collective unique items (repeat 0)", xlabel="protocol s",
                ylabel="unique items")
    for cond in finals:
        per_agent: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
        for r in all_rows:
            if r["condition"] == cond and r["repeat"] == 0:
                per_agent[r["agent"]][0].append(r["t"])
                per_agent[r["agent"]][1].append(r["unique_cumulative"])
        plots.lines(plot_dir / f"unique_items_agents_{cond}.png", dict(per_agent),
                    title=f"Unique items per agent ({cond}, repeat 0)", xlabel="protocol s",
                    ylabel="unique items")
    metrics = {"experiment": exp.experiment, "brain": configured, "brains_seen": dict(brains),
               "time_scale": opts.time_scale, "protocol": p.model_dump(),
               "measured_by": sorted(measured), "conditions": summary}
    write_json(out / "metrics.json", metrics)
    table = md_table(
        ["condition", "agents", "mean unique items", "CI", "range", "collective"]
        + ([] if is_pipeline_check(configured) else ["paper"]),
        [[c, s["agents"], s["mean_unique_items"],
          "[" + ", ".join(f"{x:.1f}" if math.isfinite(x) else "n/a" for x in s["ci"]) + "]",
          f"{s['min']:.0f}-{s['max']:.0f}" if math.isfinite(s["min"]) else "n/a",
          s["collective_unique_mean"], *paper_column(exp, configured, c)]
         for c, s in summary.items()],
    )
    report = report_header("Item progression", exp, opts, brains, configured) + table
    report += (f"\n\nInventories read by: {', '.join(sorted(measured))}. Unique items = kinds of "
               "item an agent has held at any sample so far.\n\nPlots: "
               "`plots/unique_items_mean.png`, `plots/unique_items_collective.png`, "
               "`plots/unique_items_agents_<condition>.png`.\n")
    report += paper_section(exp, configured)
    (out / "report.md").write_text(report, encoding="utf-8")
    return metrics
