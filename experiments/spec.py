"""An experiment's YAML file and its runs: conditions x repeats, each a village config.

An experiment file (``experiments/<name>/config.yaml``) has::

    experiment: tax                # which runner
    repeats: 4                     # per condition (--repeats overrides)
    conditions:                    # what differs between runs
      - {name: full-pro, preset: full, community_goal: ..., overrides: {...}, params: {...}}
    protocol: {...}                # every number of the protocol (validated by the runner)
    paper: {...}                   # the paper's figures, for report.md
    village: {...}                 # a village file (agent_runtime.config) shared by all runs

The village's ``topics`` (the experiment's vocabulary: topic files in its own folder, e.g.
``experiments/tax/topics/tax.yaml``) are named relative to the experiment file (a copy of
the file elsewhere: relative to the experiment's folder); every run's village hands them to
its agents.

A run = one condition x one repeat (:class:`RunSpec`), with its own seed, run id and folder
``<out>/runs/<condition>-r<k>/``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from agent_runtime.clock import wall_time
from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.loader import (
    parse_config,
    problems_from_validation,
    read_yaml,
    resolve_topics,
)
from agent_runtime.config.models import Strict, VillageConfig, WorldSettings
from agent_runtime.config.name_check import check_names

log = logging.getLogger(__name__)

#: what a ConfigError about an experiment file calls it
EXPERIMENT_FILE = "experiment file"


class Condition(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,40}$")
    preset: Literal["full", "baseline", "no_action_awareness", "no_social"] | None = None
    community_goal: str | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)  # dotted paths into `village`
    params: dict[str, Any] = Field(default_factory=dict)  # read by the runner


class ExperimentFile(Strict):
    experiment: str
    description: str = ""
    repeats: int = Field(default=1, ge=1, le=100)
    conditions: tuple[Condition, ...] = Field(min_length=1)
    protocol: dict[str, Any] = Field(default_factory=dict)
    paper: dict[str, Any] = Field(default_factory=dict)
    village: dict[str, Any]


def topic_base(path: Path, exp: ExperimentFile) -> Path:
    """Where the village's topic files are named from: the experiment file's folder, or, for
    a copy of the file elsewhere that does not hold them, the experiment's own folder."""
    named = [e for e in exp.village.get("topics") or () if isinstance(e, str)]
    if all((path.parent / e).exists() for e in named):
        return path.parent
    return Path(__file__).resolve().parent / exp.experiment


def load_experiment_file(path: Path, known: Collection[str] | None = None) -> ExperimentFile:
    """Read and validate an experiment file; errors name the field and the file. With
    ``known``, an experiment not among them is the error, before its topic files are looked
    for in its folder."""
    data = read_yaml(path)
    try:
        exp = ExperimentFile.model_validate(data)
    except ValidationError as err:
        problems = problems_from_validation(err, ExperimentFile)
        raise ConfigError(path, problems, EXPERIMENT_FILE) from None
    if known is not None and exp.experiment not in known:
        raise ConfigError(path, [FieldProblem(
            "experiment", f"unknown experiment {exp.experiment!r}; known: {sorted(known)}"
        )], EXPERIMENT_FILE)  # fmt: skip
    where = f"{path} (village)"
    # topic files made absolute, so that every run's village finds them
    village = dict(resolve_topics(exp.village, topic_base(path, exp), where, load=False))
    exp = exp.model_copy(update={"village": village})
    parse_config(exp.village, where)  # fail early on a broken village
    names = [c.name for c in exp.conditions]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        problem = FieldProblem("conditions", f"names repeated: {dup}")
        raise ConfigError(path, [problem], EXPERIMENT_FILE)
    return exp


def parse_protocol(exp: ExperimentFile, model: type[Any], file: Path | str) -> Any:
    """The protocol as ``model``; its block and item names checked at each Minecraft version
    the experiment's runs use (the village's, a condition's ``world.version``)."""
    try:
        protocol = model.model_validate(exp.protocol)
    except ValidationError as err:
        problems = [
            FieldProblem("protocol." + p.path if p.path else "protocol", p.message)
            for p in problems_from_validation(err, model)
        ]
        raise ConfigError(file, problems, EXPERIMENT_FILE) from None
    base = WorldSettings.model_validate(exp.village.get("world") or {}).version
    versions = {base, *(c.overrides.get("world.version", base) for c in exp.conditions)}
    for version in sorted(versions):
        check_names(protocol, str(version), file, "protocol")
    return protocol


@dataclass(frozen=True)
class ExperimentOptions:
    """Command-line knobs (``piano experiment``)."""

    out: Path
    llm: str | None = None  # heuristic | openai; None = the file's llm.provider
    repeats: int | None = None
    time_scale: float = 1.0
    world: str | None = None  # embedded | none; None = the file's world.kind
    agents: int | None = None  # fewer (or more, where the runner allows) agents
    scale: float | None = None  # culture: the paper's protocol times this (--scale)
    conditions: tuple[str, ...] = ()  # run only these conditions
    seed: int | None = None
    # agents hosted by this many worker processes sharing Redis, the broker and the world
    # (experiments/workers.py); 1 = in this process
    workers: int = 1
    shards: int | None = None  # culture: Minecraft servers the area is split over (--shards)
    embedder: Any = None  # tests: a cheap encoder instead of MiniLM
    llm_override: Any = None  # tests: a LanguageModel (e.g. scripted) used by every module
    progress: Callable[[str], None] | None = None
    # set by Ctrl-C/SIGTERM (``piano experiment``): the current run ends early and no
    # further run starts; the report covers the runs done
    stop: asyncio.Event | None = None


@dataclass(frozen=True)
class RunSpec:
    experiment: str
    condition: Condition
    repeat: int
    seed: int
    run_id: str
    run_dir: Path
    config: VillageConfig
    time_scale: float

    @property
    def label(self) -> str:
        return f"{self.condition.name}-r{self.repeat}"


def set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    node = data
    keys = dotted.split(".")
    for k in keys[:-1]:
        nxt = node.get(k)
        if not isinstance(nxt, dict):
            nxt = node[k] = {}
        node = nxt
    node[keys[-1]] = value


def village_data(
    exp: ExperimentFile, cond: Condition, opts: ExperimentOptions, seed: int
) -> dict[str, Any]:
    """The village file for one run (as data): condition, CLI flags and seed applied."""
    data: dict[str, Any] = json.loads(json.dumps(exp.village))  # deep copy of plain data
    if cond.preset is not None:
        set_dotted(data, "modules.preset", cond.preset)
    if cond.community_goal is not None:
        data["community_goal"] = cond.community_goal
    for dotted, value in cond.overrides.items():
        set_dotted(data, dotted, value)
    if opts.llm is not None:
        set_dotted(data, "llm.provider", opts.llm)
    if opts.world is not None:
        set_dotted(data, "world.kind", opts.world)
    set_dotted(data, "run.seed", seed)
    set_dotted(data, "run.time_scale", opts.time_scale)
    set_dotted(data, "run.progress_every", max(0.5, 10.0 * opts.time_scale))
    return data


def plan_runs(
    exp: ExperimentFile,
    opts: ExperimentOptions,
    out: Path,
    make_config: Callable[[dict[str, Any], Condition, int], VillageConfig] | None = None,
) -> Iterator[RunSpec]:
    """Conditions x repeats, each with its own seed, run id and folder."""
    selected = [c for c in exp.conditions if not opts.conditions or c.name in opts.conditions]
    unknown = sorted(set(opts.conditions) - {c.name for c in exp.conditions})
    if unknown:
        raise ValueError(
            f"unknown condition(s) {unknown}; known: {[c.name for c in exp.conditions]}"
        )
    repeats = opts.repeats or exp.repeats
    base_seed = opts.seed if opts.seed is not None else int(exp.village.get("run", {}).get("seed", 0))
    for ci, cond in enumerate(selected):
        for r in range(repeats):
            if opts.stop is not None and opts.stop.is_set():
                log.warning("stopped: runs from %s-r%d on are not started", cond.name, r)
                return
            seed = base_seed + 1000 * r + ci  # repeats differ; conditions of a repeat pair up
            data = village_data(exp, cond, opts, seed)
            label = f"{cond.name}-r{r}"
            cfg = make_config(data, cond, seed) if make_config else parse_config(data, label)
            yield RunSpec(
                experiment=exp.experiment,
                condition=cond,
                repeat=r,
                seed=seed,
                run_id=f"{exp.experiment}-{label}-{int(wall_time() * 1000) % 10**8}",
                run_dir=out / "runs" / label,
                config=cfg,
                time_scale=opts.time_scale,
            )
