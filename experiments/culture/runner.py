"""Culture and religion (the paper's large-scale experiment): towns and rural agents,
Pastafarian priests in one town; memes from goal histories, converts from what was said.

Per run: the population (``population.py``) becomes the village's ``agents`` (each with its
own name, traits, inventory, spawn and the towns' locations in its memory); every
``sample_every_s`` the agents' goal histories and positions are read from the state store;
after the run each agent's goals are reduced to memes (``memes.py``) and the delivered
``speech`` records of the run are read back from ``events.jsonl``. The figures come from
those raw files only (``analysis.py``; ``recompute.py`` recomputes them).

``--scale F`` (default: ``protocol.scale``) runs the paper's protocol smaller: agents, town
sizes and priests times F, the area and town radius times sqrt(F), the duration times F.
``--shards K`` (default: ``protocol.shards``) splits the area over K Minecraft servers
(``shards.py``); ``--workers N`` hosts the agents in N worker processes
(``experiments/workers.py``). Positions are read from every server's admin API.
"""

from __future__ import annotations

import contextlib
import logging
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from agent_runtime.clock import Clock
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import Strict, VillageConfig
from experiments import ledger as skills_ledger
from experiments.common import admin_apis, agent_names, fresh_state, run_village
from experiments.culture import analysis, recompute
from experiments.culture.memes import extract
from experiments.culture.population import (
    Population,
    Resident,
    Town,
    agent_specs,
    populate,
    scaled,
)
from experiments.culture.shards import shard_of, shard_settings
from experiments.culture.summary import scale_note
from experiments.files import read_events, write_csv, write_json
from experiments.runner_base import RunBook, parse_protocol
from experiments.spec import Condition, ExperimentFile, ExperimentOptions, RunSpec

log = logging.getLogger(__name__)

DEFAULT_HEARING_RADIUS = 32.0  # blocks; used only when the village sets no world.hearing_radius


class CultureProtocol(Strict):
    duration_s: float = Field(default=9000.0, gt=0)
    scale: float = Field(default=1.0, gt=0, le=1)  # --scale overrides
    sample_every_s: float = Field(default=30.0, gt=0)
    area_cell: float = Field(default=2.0, gt=0)  # raster cell of the area of influence
    meme_extractor: Literal["auto", "heuristic", "llm"] = "auto"
    spawn_y: float = 65.0
    shards: int = Field(default=1, ge=1, le=64)  # Minecraft servers, one part of the area each
    population: Population


PROTOCOL_MODEL = CultureProtocol


class ProtocolAsRun(Strict):
    """The protocol as it ran (after --scale / --agents), for the report's header."""

    scale: str
    duration_s: float
    sample_every_s: float
    agents: int
    towns: int
    per_town: int
    rural: int
    priests: int
    area: str
    town_radius: float
    hearing_radius: float | None
    meme_extractor: str
    area_cell: float
    shards: int
    workers: int


def resize(p: Population, scale: float, agents: int | None) -> Population:
    """The scaled population; ``--agents N`` then changes the head counts only."""
    s = scaled(p, scale)
    if agents is None or agents == s.agents:
        return s
    f = agents / s.agents
    per_town = max(1, round(s.per_town * f))
    return s.model_copy(update={
        "agents": max(2, agents), "per_town": per_town,
        "towns": max(1, min(p.towns, agents // (per_town + 1))),
        "priests": max(1, min(per_town, round(s.priests * f))),
    })


def hearing_radius(cfg: VillageConfig) -> float:
    r = getattr(cfg.world, "hearing_radius", None)
    return float(r) if r else DEFAULT_HEARING_RADIUS


async def _one_run(spec: RunSpec, opts: ExperimentOptions, p: CultureProtocol,
                   duration_s: float) -> dict[str, Any]:
    from agent_runtime.state.sections import Goals, Perception

    goals: dict[str, dict[tuple[float, str], dict[str, Any]]] = defaultdict(dict)
    positions: list[dict[str, Any]] = []
    state: dict[str, Any] = {"start": 0.0, "scale": 1.0, "admin": None}

    async def world_positions() -> dict[str, tuple[float, float, str]]:
        """Where the world has every body (each server's admin API: the scoring side's ground
        truth, whatever a body's own observation managed under load), with the server's
        shard name ("" unsharded); empty without an admin API or when the calls fail."""
        out: dict[str, tuple[float, float, str]] = {}
        for shard, admin in state["admin"] or ():
            try:
                players = await admin.players()
            except Exception as err:  # a sample missed; the agents' own perception instead
                log.warning("admin players%s: %s", f" of {shard}" if shard else "", err)
                continue
            for pl in players:
                if pl.get("position"):  # a body on two servers (moving) counts once
                    out.setdefault(str(pl["username"]), (float(pl["position"]["x"]),
                                                         float(pl["position"]["z"]), shard))
        return out

    async def sample(village: Any, tl: Clock, t: float) -> None:
        world = await world_positions()
        await fresh_state(village)  # agents in workers: their state from Redis
        for name in agent_names(village):
            agent = village.store.agent(name)
            for e in agent.get("goals", Goals).history:
                goals[name][(e.at, e.goal)] = {
                    "agent": name, "t": round(tl.since_start(e.at), 3),
                    "goal": e.goal, "brain": e.brain}
            if name in world:
                x, z, shard = world[name]
                positions.append({"agent": name, "t": t, "x": round(x, 2), "z": round(z, 2),
                                  "by": "admin_api", "shard": shard})
                continue
            pos = agent.get("perception", Perception).observation.position
            if pos is not None:
                positions.append({"agent": name, "t": t, "x": round(pos.x, 2),
                                  "z": round(pos.z, 2), "by": "perception"})

    async def during(village: Any, tl: Clock) -> None:
        async with contextlib.AsyncExitStack() as stack:
            state["admin"] = await open_admins(stack, village)
            try:
                k = 0
                while True:
                    await tl.until(k * p.sample_every_s)
                    await sample(village, tl, round(k * p.sample_every_s, 6))
                    k += 1
            finally:
                state["admin"] = None

    meme_rows: list[dict[str, Any]] = []

    async def after(village: Any, tl: Clock) -> None:
        async with contextlib.AsyncExitStack() as stack:
            state["admin"] = await open_admins(stack, village)
            await sample(village, tl, duration_s)
            state["admin"] = None
        state["start"], state["scale"] = tl.started, tl.time_scale
        llm = village.services.llm if p.meme_extractor != "heuristic" else None
        for name in agent_names(village):
            entries = sorted(goals[name].values(), key=lambda e: e["t"])
            per_goal, brain = await extract(llm, name, [e["goal"] for e in entries])
            for e, topics in zip(entries, per_goal, strict=True):
                meme_rows.extend({"agent": name, "t": e["t"], "goal": e["goal"], "topic": tp,
                                  "brain": brain} for tp in sorted(topics))

    await run_village(spec, opts, duration_s, during, after)
    events = read_events(spec.run_dir)
    start, scale = state["start"], state["scale"]
    speech = [
        {"agent": e["agent"], "t": round((float(e["t"]) - start) / scale, 3),
         "text": e.get("text", ""), "to": e.get("to") or ""}
        for e in events
        if e.get("type") == "speech" and e.get("delivered") and "agent" in e
    ]
    attempted = sum(1 for e in events if e.get("type") == "speech")
    transfers = sum(1 for e in events if e.get("type") == "shard_transfer")
    return {"goals": [g for n in goals for g in goals[n].values()], "positions": positions,
            "memes": meme_rows, "speech": speech, "speech_attempted": attempted,
            "skills": skills_ledger.skill_rows(events),
            "shard_transfers": transfers}


def _shard(x: float, z: float, parts: list[dict[str, Any]]) -> str:
    return shard_of(x, z, parts) if parts else ""


async def open_admins(stack: contextlib.AsyncExitStack, village: Any) -> list[tuple[str, Any]]:
    """An admin API client per Minecraft server of the run (one per shard), with the shard's
    name ("" unsharded); none without a world."""
    from bots.admin import AdminClient

    return [(name, await stack.enter_async_context(AdminClient(url)))
            for name, url in admin_apis(village.world)]


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: CultureProtocol = parse_protocol(exp, CultureProtocol, out / "config.yaml")
    scale = opts.scale if opts.scale is not None else p.scale
    shards = opts.shards if opts.shards is not None else p.shards
    pop = resize(p.population, scale, opts.agents)
    duration_s = p.duration_s * scale
    ledger: dict[int, tuple[list[Town], list[Resident], list[dict[str, Any]]]] = {}

    def make_config(data: dict[str, Any], cond: Condition, seed: int) -> VillageConfig:
        layout = data.get("world", {}).get("layout", {})
        centred = pop.model_copy(update={"centre": (float(layout.get("centre_x", 0)),
                                                    float(layout.get("centre_z", 0)))})
        towns, people = populate(centred, seed)
        parts = shard_settings(centred, towns, people, shards, layout) if shards > 1 else []
        ledger[seed] = (towns, people, parts)
        data["agents"] = [{**a, "spawn_location": {**a["spawn_location"], "y": p.spawn_y}}
                          for a in agent_specs(centred, towns, people)]
        data.pop("agent_templates", None)
        if parts:
            data.setdefault("world", {})["shards"] = parts
        return parse_config(data, f"culture/{cond.name}")

    book = RunBook(exp, opts, out)
    raw: dict[str, list[dict[str, Any]]] = defaultdict(list)
    settings: dict[str, dict[str, Any]] = {}
    for spec in book.runs(make_config):
        towns, people, parts = ledger[spec.seed]
        if opts.progress:
            opts.progress(f"run {spec.label}: {len(towns)} towns, {duration_s:g} protocol s, "
                          f"scale {scale:g}, {shards} server(s), {opts.workers} worker(s)")
        run = await _one_run(spec, opts, p, duration_s)
        book.done(spec, len(people))
        tag = {"run": spec.label}
        raw["residents"] += [{**tag, "name": r.name, "home": r.home, "priest": r.priest,
                              "x": r.x, "z": r.z, "traits": list(r.traits),
                              "inventory": r.inventory, "shard": _shard(r.x, r.z, parts)}
                             for r in people]
        raw["towns"] += [{**tag, "name": t.name, "x": t.x, "z": t.z, "radius": t.radius,
                          "shard": _shard(t.x, t.z, parts)} for t in towns]
        for key in ("speech", "memes", "positions", "goals"):
            raw[key] += [{**tag, **row} for row in run[key]]
        raw["skills"] += [{"condition": spec.condition.name, "repeat": spec.repeat, **row}
                          for row in run["skills"]]
        settings[spec.label] = {
            "condition": spec.condition.name, "repeat": spec.repeat, "seed": spec.seed,
            "scale": scale, "duration_s": duration_s, "sample_every_s": p.sample_every_s,
            "hearing_radius": hearing_radius(spec.config), "area_cell": p.area_cell,
            "speech_attempted": run["speech_attempted"], "workers": opts.workers,
            "shards": [{"name": s["name"], **s["region"], "max_bots": s["max_bots"]}
                       for s in parts],
            "shard_transfers": run["shard_transfers"],
        }
    radius = next(iter(settings.values()))["hearing_radius"] if settings else None
    as_run = ProtocolAsRun(
        scale=f"{scale:g}", duration_s=duration_s, sample_every_s=p.sample_every_s,
        agents=pop.agents, towns=pop.towns, per_town=pop.per_town,
        rural=max(0, pop.agents - pop.towns * pop.per_town), priests=pop.priests,
        area=f"{pop.area[0]:.0f} x {pop.area[1]:.0f}", town_radius=round(pop.town_radius, 1),
        hearing_radius=radius, meme_extractor=p.meme_extractor, area_cell=p.area_cell,
        shards=shards, workers=opts.workers)
    for key, cols in RAW_FIELDS.items():
        write_csv(out / f"{key}.csv", raw[key], cols)
    write_csv(out / "skills.csv", raw["skills"], skills_ledger.SKILL_FIELDS)
    write_json(out / analysis.SETTINGS, settings)
    figs = recompute.figures(out)
    analysis.draw(out, skills_ledger.without(figs))
    text = (f"Scale {scale:g} of the paper's protocol: {scale_note(pop)}; {duration_s:g} "
            f"protocol s. Memes are read by the {p.meme_extractor} extractor (auto = the LLM "
            "when the run has one, else `meme_keywords.txt`) from each agent's own goal "
            f"history, sampled every {p.sample_every_s:g} protocol s with the positions. "
            "Converts come from the delivered `speech` records of the run (what agents said "
            "in the world, heard within the hearing radius).\n\nRaw data: `residents.csv`, "
            "`towns.csv`, `speech.csv`, `memes.csv`, `positions.csv`, `goals.csv`, "
            "`settings.json`, `runs.csv`; `python -m experiments.culture.recompute OUT` "
            "recomputes every figure above from them.\n\nPlots per run: "
            "`plots/memes_per_capita_<run>.png`, `plots/memes_over_time_<run>.png`, "
            "`plots/converts_over_time_<run>.png`, `plots/influence_over_time_<run>.png`.\n\n"
            "Lines: each run's table gives the speech lines delivered (heard in the world) of "
            "those the agents spoke (`speech lines delivered / attempted`). "
            + skills_ledger.LEDGER_TEXT)
    if shards > 1:
        text += (f"\nWorld: {shards} Minecraft servers, one rectangle of the area each "
                 "(`settings.json`: `shards`, `shard_transfers`; `residents.csv`, `towns.csv` "
                 "and `positions.csv`: `shard`); a line is heard only on its speaker's "
                 "server.\n")
    return book.finish("Culture and religion", as_run, figs, recompute.tables(out, figs),
                       text, {"scale": scale, "shards": shards, "workers": opts.workers})


RAW_FIELDS: dict[str, list[str]] = {
    "residents": ["run", "name", "home", "priest", "x", "z", "traits", "inventory", "shard"],
    "towns": ["run", "name", "x", "z", "radius", "shard"],
    "speech": ["run", "agent", "t", "text", "to"],
    "memes": ["run", "agent", "t", "goal", "topic", "brain"],
    "positions": ["run", "agent", "t", "x", "z", "by", "shard"],
    "goals": ["run", "agent", "t", "goal", "brain"],
}
