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
"""

from __future__ import annotations

import contextlib
import logging
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import VillageConfig
from experiments.common import (
    Condition,
    ExperimentFile,
    ExperimentOptions,
    RunSpec,
    Strict,
    Timeline,
    read_events,
    run_village,
    write_csv,
    write_json,
)
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
from experiments.culture.summary import scale_note
from experiments.runner_base import RunBook, parse_protocol

log = logging.getLogger(__name__)

DEFAULT_HEARING_RADIUS = 32.0  # blocks; used only when the village sets no world.hearing_radius


class CultureProtocol(Strict):
    duration_s: float = Field(default=9000.0, gt=0)
    scale: float = Field(default=1.0, gt=0, le=1)  # --scale overrides
    sample_every_s: float = Field(default=30.0, gt=0)
    area_cell: float = Field(default=2.0, gt=0)  # raster cell of the area of influence
    meme_extractor: Literal["auto", "heuristic", "llm"] = "auto"
    spawn_y: float = 65.0
    population: Population


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

    async def world_positions(village: Any) -> dict[str, tuple[float, float]]:
        """Where the world has every body (the embedded world's admin API: the scoring side's
        ground truth, whatever a body's own observation managed under load); empty without
        one or when the call fails."""
        admin = state["admin"]
        if admin is None:
            return {}
        try:
            players = await admin.players()
        except Exception as err:  # a sample missed; the agents' own perception instead
            log.warning("admin players: %s", err)
            return {}
        return {str(pl["username"]): (float(pl["position"]["x"]), float(pl["position"]["z"]))
                for pl in players if pl.get("position")}

    async def sample(village: Any, tl: Timeline, t: float) -> None:
        world = await world_positions(village)
        for name in village.agents:
            agent = village.store.agent(name)
            for e in agent.get("goals", Goals).history:
                goals[name][(e.at, e.goal)] = {
                    "agent": name, "t": round(max(0.0, (e.at - tl.start) / tl.scale), 3),
                    "goal": e.goal, "brain": e.brain}
            if name in world:
                x, z = world[name]
                positions.append({"agent": name, "t": t, "x": round(x, 2), "z": round(z, 2),
                                  "by": "admin_api"})
                continue
            pos = agent.get("perception", Perception).observation.position
            if pos is not None:
                positions.append({"agent": name, "t": t, "x": round(pos.x, 2),
                                  "z": round(pos.z, 2), "by": "perception"})

    async def during(village: Any, tl: Timeline) -> None:
        async with contextlib.AsyncExitStack() as stack:
            if getattr(village.world, "admin_url", None):
                from bots.admin import AdminClient

                state["admin"] = await stack.enter_async_context(
                    AdminClient(village.world.admin_url))
            try:
                k = 0
                while True:
                    await tl.until(k * p.sample_every_s)
                    await sample(village, tl, round(k * p.sample_every_s, 6))
                    k += 1
            finally:
                state["admin"] = None

    meme_rows: list[dict[str, Any]] = []

    async def after(village: Any, tl: Timeline) -> None:
        if getattr(village.world, "admin_url", None):
            from bots.admin import AdminClient

            async with AdminClient(village.world.admin_url) as admin:
                state["admin"] = admin
                await sample(village, tl, duration_s)
                state["admin"] = None
        else:
            await sample(village, tl, duration_s)
        state["start"], state["scale"] = tl.start, tl.scale
        llm = village.services.llm if p.meme_extractor != "heuristic" else None
        for name in village.agents:
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
    return {"goals": [g for n in goals for g in goals[n].values()], "positions": positions,
            "memes": meme_rows, "speech": speech, "speech_attempted": attempted}


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: CultureProtocol = parse_protocol(exp, CultureProtocol, out / "config.yaml")
    scale = opts.scale if opts.scale is not None else p.scale
    pop = resize(p.population, scale, opts.agents)
    duration_s = p.duration_s * scale
    ledger: dict[int, tuple[list[Town], list[Resident]]] = {}

    def make_config(data: dict[str, Any], cond: Condition, seed: int) -> VillageConfig:
        layout = data.get("world", {}).get("layout", {})
        centred = pop.model_copy(update={"centre": (float(layout.get("centre_x", 0)),
                                                    float(layout.get("centre_z", 0)))})
        towns, people = populate(centred, seed)
        ledger[seed] = (towns, people)
        data["agents"] = [{**a, "spawn_location": {**a["spawn_location"], "y": p.spawn_y}}
                          for a in agent_specs(centred, towns, people)]
        data.pop("agent_templates", None)
        return parse_config(data, f"culture/{cond.name}")

    book = RunBook(exp, opts, out)
    raw: dict[str, list[dict[str, Any]]] = defaultdict(list)
    settings: dict[str, dict[str, Any]] = {}
    for spec in book.runs(make_config):
        towns, people = ledger[spec.seed]
        if opts.progress:
            opts.progress(f"run {spec.label}: {len(towns)} towns, {duration_s:g} protocol s, "
                          f"scale {scale:g}")
        run = await _one_run(spec, opts, p, duration_s)
        book.done(spec, len(people))
        tag = {"run": spec.label}
        raw["residents"] += [{**tag, "name": r.name, "home": r.home, "priest": r.priest,
                              "x": r.x, "z": r.z, "traits": list(r.traits),
                              "inventory": r.inventory} for r in people]
        raw["towns"] += [{**tag, "name": t.name, "x": t.x, "z": t.z, "radius": t.radius}
                         for t in towns]
        for key in ("speech", "memes", "positions", "goals"):
            raw[key] += [{**tag, **row} for row in run[key]]
        settings[spec.label] = {
            "condition": spec.condition.name, "repeat": spec.repeat, "seed": spec.seed,
            "scale": scale, "duration_s": duration_s, "sample_every_s": p.sample_every_s,
            "hearing_radius": hearing_radius(spec.config), "area_cell": p.area_cell,
            "speech_attempted": run["speech_attempted"],
        }
    radius = next(iter(settings.values()))["hearing_radius"] if settings else None
    as_run = ProtocolAsRun(
        scale=f"{scale:g}", duration_s=duration_s, sample_every_s=p.sample_every_s,
        agents=pop.agents, towns=pop.towns, per_town=pop.per_town,
        rural=max(0, pop.agents - pop.towns * pop.per_town), priests=pop.priests,
        area=f"{pop.area[0]:.0f} x {pop.area[1]:.0f}", town_radius=round(pop.town_radius, 1),
        hearing_radius=radius, meme_extractor=p.meme_extractor, area_cell=p.area_cell)
    for key, cols in RAW_FIELDS.items():
        write_csv(out / f"{key}.csv", raw[key], cols)
    write_json(out / analysis.SETTINGS, settings)
    figs = recompute.figures(out)
    analysis.draw(out, figs)
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
            "`plots/converts_over_time_<run>.png`, `plots/influence_over_time_<run>.png`.\n")
    return book.finish("Culture and religion", as_run, figs, recompute.tables(out, figs),
                       text, {"scale": scale})


RAW_FIELDS: dict[str, list[str]] = {
    "residents": ["run", "name", "home", "priest", "x", "z", "traits", "inventory"],
    "towns": ["run", "name", "x", "z", "radius"],
    "speech": ["run", "agent", "t", "text", "to"],
    "memes": ["run", "agent", "t", "goal", "topic", "brain"],
    "positions": ["run", "agent", "t", "x", "z", "by"],
    "goals": ["run", "agent", "t", "goal", "brain"],
}
