"""The chef scenario: does the food a chef gives track how much it values each character?

Per run: the chef and the characters become the village's ``agents`` (each with only its own
name, traits, inventory and spawn next to the others); the characters' attitudes stay here.
Food per agent is read at the start and at the end (admin API, else the agents' own
perception); the chef's delivered ``give`` skills and the characters' requests to the chef
are read back from ``events.jsonl``; at the end the chef's impression of each character (its
``Social`` summary and sentiment, or the lines it heard without the social module) is scored
0-10 by the social perception experiment's scorer (``impression_view``/``score_impression``).
The figures come from the raw files only (``recompute.py``).
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from agent_runtime.clock import Clock
from agent_runtime.config.game_names import Inventory, ItemName
from agent_runtime.config.layout import VillageLayout
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import Position, Strict, VillageConfig
from experiments import common, plots
from experiments import metrics as M
from experiments.chef import recompute
from experiments.chef.ledger import read_ledger, unexplained
from experiments.files import read_events
from experiments.runner_base import RunBook, parse_protocol
from experiments.social_perception.runner import heard_by, impression_view, score_impression
from experiments.spec import Condition, ExperimentFile, ExperimentOptions, RunSpec

log = logging.getLogger(__name__)


class Person(Strict):
    name: str
    traits: tuple[str, ...] = ()
    inventory: Inventory = Field(default_factory=dict)


class Character(Person):
    attitude: str  # a hidden experiment variable: the scoring side only
    attitude_score: float


class ChefProtocol(Strict):
    duration_s: float = Field(default=600.0, gt=0)
    food: tuple[ItemName, ...] = Field(default=("bread",), min_length=1)
    spawn: Position | None = None  # None = the village square of the run's layout
    ring_radius: float = Field(default=3.0, gt=0, le=16)
    score_with: Literal["auto", "heuristic", "llm"] = "auto"
    confidence: float = Field(default=0.95, gt=0, lt=1)
    chef: Person
    characters: tuple[Character, ...] = Field(min_length=2)

    @model_validator(mode="after")
    def _distinct(self) -> ChefProtocol:
        names = [self.chef.name, *(c.name for c in self.characters)]
        if len(set(names)) != len(names):
            raise ValueError(f"names repeated: {names}")
        return self


PROTOCOL_MODEL = ChefProtocol


def cast(p: ChefProtocol, agents: int | None) -> tuple[Character, ...]:
    """The characters of a run (``--agents N``: the chef and the first N-1)."""
    return p.characters if agents is None else p.characters[: max(2, agents - 1)]


def make_config(p: ChefProtocol, opts: ExperimentOptions) -> Any:
    """Each agent gets its own name, traits, inventory and a spawn next to the others;
    attitudes and roles stay in the protocol."""

    def build(data: dict[str, Any], cond: Condition, seed: int) -> VillageConfig:
        chars = cast(p, opts.agents)
        lay = VillageLayout.model_validate(data.get("world", {}).get("layout", {}))
        s = p.spawn or Position(x=lay.centre_x, y=lay.ground_level + 1, z=lay.centre_z)
        spots = [(s.x + p.ring_radius * math.cos(2 * math.pi * i / len(chars)),
                  s.z + p.ring_radius * math.sin(2 * math.pi * i / len(chars)))
                 for i in range(len(chars))]
        data["agents"] = [
            {"name": a.name, "traits": list(a.traits), "inventory": dict(a.inventory),
             "spawn_location": {"x": round(x, 2), "y": s.y, "z": round(z, 2)}}
            for a, (x, z) in [(p.chef, (s.x, s.z)), *zip(chars, spots, strict=True)]
        ]
        data.pop("agent_templates", None)
        cfg = parse_config(data, f"chef/{cond.name}")
        radius = cfg.world.hearing_radius
        if radius is not None and radius < p.ring_radius:
            raise ValueError(f"ring_radius {p.ring_radius} is beyond world.hearing_radius {radius}")
        return cfg

    return build


async def food_held(village: Any, names: list[str], food: tuple[str, ...]) -> tuple[dict[str, int], str]:
    """Food each agent holds: the admin API's inventories, else (no world, or the API failed
    for an agent) that agent's own perception; and what measured it."""
    from agent_runtime.state.sections import Perception

    counts: dict[str, Counter[str]] = {}
    admin: Any = getattr(village.world, "admin", None)  # the embedded world's AdminClient
    for n in names if admin is not None else ():
        try:
            items = await admin.inventory(n)
        except Exception as err:  # measured from its perception instead (said so)
            log.warning("inventory of %s through the admin API: %s", n, err)
            continue
        counts[n] = Counter()
        for it in items:
            counts[n][str(it["name"])] += int(it["count"])
    how = "admin_api" if len(counts) == len(names) else "perception" if not counts else "mixed"
    if len(counts) < len(names):
        await common.fresh_state(village)  # agents in workers: their state from Redis
    for n in names:
        if n not in counts:
            obs = village.store.agent(n).get("perception", Perception).observation
            counts[n] = Counter(obs.inventory)
    return {n: sum(c.get(f, 0) for f in food) for n, c in counts.items()}, how


async def valuations(llm: Any, chef: str, names: list[str], social: Any,
                     conv: Any) -> list[dict[str, Any]]:
    """How much the chef values each character: its own impression (social summary and
    sentiment, or the lines it heard) scored 0-10; nan when it has none."""
    heard = heard_by(conv, names, chef)
    rows = []
    for c in names:
        view = impression_view(chef, c, social, heard.get(c, []))
        pv = social.people.get(c)
        row: dict[str, Any] = {"character": c, "valuation": math.nan, "valuation_source": "none",
                               "sentiment": pv.sentiment if pv is not None else math.nan,
                               "summary": "", "brain": ""}
        if view is not None:
            out, brain = await score_impression(llm, view)
            row.update(valuation=out.score, valuation_source=view.source,
                       summary=view.summary, brain=brain)
        rows.append(row)
    return rows


async def _one_run(spec: RunSpec, opts: ExperimentOptions,
                   p: ChefProtocol) -> dict[str, Any]:
    from agent_runtime.state.sections import Conversation, Social

    chars = cast(p, opts.agents)
    names = [c.name for c in chars]
    everyone = [p.chef.name, *names]
    data: dict[str, Any] = {}

    async def during(village: Any, tl: Clock) -> None:
        data["start"], data["measured_by"] = await food_held(village, everyone, p.food)

    async def after(village: Any, tl: Clock) -> None:
        data["end"], how = await food_held(village, everyone, p.food)
        if how != data.get("measured_by", how):
            data["measured_by"] = "mixed"
        await common.fresh_state(village)
        st = village.store.agent(p.chef.name)
        llm = village.services.llm if p.score_with != "heuristic" else None
        data["valuations"] = await valuations(llm, p.chef.name, names, st.get("social", Social),
                                              st.get("conversation", Conversation))

    await common.run_village(spec, opts, p.duration_s, during, after)
    led = read_ledger(read_events(spec.run_dir), p.chef.name, p.food, names)
    start, end = data.get("start", {}), data.get("end", {})
    rows = []
    for c, v in zip(chars, data.get("valuations", []), strict=True):
        rows.append({**v, "attitude": c.attitude, "attitude_score": c.attitude_score,
                     "food_start": start.get(c.name, 0), "food_end": end.get(c.name, 0),
                     "food_given": led.received(c.name, p.chef.name),
                     "from_others": led.received(c.name) - led.received(c.name, p.chef.name),
                     "own_change": led.own[c.name], "unexplained": unexplained(c.name, start, end, led),
                     "requests": led.asked[c.name]})
    chef = {"chef": p.chef.name, "food_start": start.get(p.chef.name, 0),
            "food_end": end.get(p.chef.name, 0), "own_change": led.own[p.chef.name],
            "ledger_total": led.given(p.chef.name), "gives_failed": led.failed[p.chef.name],
            "unexplained": unexplained(p.chef.name, start, end, led),
            "measured_by": data.get("measured_by", "none")}
    return {"characters": rows, "chef": [chef]}


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions,
                         out: Path) -> dict[str, Any]:
    p: ChefProtocol = parse_protocol(exp, ChefProtocol, out / "config.yaml")
    book = RunBook(exp, opts, out)
    for spec in book.runs(make_config(p, opts)):
        run = await _one_run(spec, opts, p)
        book.done(spec, 1 + len(run["characters"]))
        book.collect(spec, characters=run["characters"], chef=run["chef"])
    book.write("characters", recompute.CHARACTER_FIELDS)
    book.write("chef", recompute.CHEF_FIELDS)
    figs = recompute.figures(out)
    _plots(out, figs)
    text = (
        "\n\nFood given to a character = the food the chef's delivered `give` skills handed "
        "to it (a give succeeds when the server announces that the receiver picked the stack "
        "up). The world checks it: the food each agent holds at the start and the end (admin "
        "API inventories; `measured_by`) minus its own skills' change of food (bread baked "
        "from harvested wheat, food eaten or given away) minus what delivered gives brought "
        "it leaves `unexplained` food, 0 when the world agrees with the ledger. The chef's "
        "valuation of a character = its own impression at the end (social module summary "
        "and sentiment; without the social module, the lines it heard) scored 0-10 by the "
        "social perception scorer; n/a when the chef has no impression. r is n/a when a side "
        "is constant (e.g. nobody got food)."
        "\n\nThe characters' attitudes (`attitude`, `attitude_score`) are hidden experiment "
        "variables: only their own profiles' traits express them, and only this report reads "
        "the labels.\n\nRaw data: `characters.csv`, `chef.csv`, `runs.csv`; "
        "`python -m experiments.chef.recompute OUT` recomputes every figure above from them."
        "\n\nPlots: `plots/food_vs_valuation_<c>.png`, `plots/food_by_attitude.png`.\n"
    )
    return book.finish("Chef scenario", p, figs, recompute.tables(out, figs), text)


def _plots(out: Path, figs: dict[str, Any]) -> None:
    plot_dir = out / "plots"
    by_att: dict[str, dict[str, float]] = {}
    for cond, f in figs.items():
        pts = [(c["food_given"], c["valuation"]) for r in f["runs"] for c in r["characters"]]
        xs, ys = [float(v) for v, _ in pts], [float(v) for _, v in pts]
        fit = M.pearson(ys, xs)
        plots.scatter_fit(plot_dir / f"food_vs_valuation_{cond}.png", ys, xs, slope=fit.slope,
                          intercept=fit.intercept,
                          title=f"Food given vs the chef's valuation ({cond}, all repeats)",
                          xlabel="chef's valuation (0-10)", ylabel="food given")
        by_att[cond] = f["food_by_attitude"]
    plots.bars(plot_dir / "food_by_attitude.png", by_att,
               title="Food given per character's (hidden) attitude, mean over repeats",
               ylabel="food given")
