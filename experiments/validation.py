"""``piano validate`` for experiment files: the file, its protocol and every condition's village.

An experiment file (``experiments/<name>/config.yaml``) is not a village file: it wraps one
(``village:``) with conditions and a protocol. :func:`validate_experiment_file` checks all of
it the way ``piano experiment`` would before its first run: the file's own fields, the
protocol against the runner's protocol model, and the village that each condition makes
(condition preset, community goal and dotted overrides applied). Every problem raises
:class:`~agent_runtime.config.errors.ConfigError` naming the file and the field.

What it answers is what a run of the file will be: its agents, conditions, repeats and the
wall time of the whole experiment at ``--time-scale 1`` (:class:`ExperimentSummary`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.config.errors import ConfigError
from agent_runtime.config.llm import unknown_llm_keys
from agent_runtime.config.loader import parse_config, resolve_agents
from experiments.registry import EXPERIMENTS, LLM_CALLS
from experiments.spec import (
    EXPERIMENT_FILE,
    ExperimentOptions,
    load_experiment_file,
    parse_protocol,
    village_data,
)

__all__ = ["ExperimentSummary", "validate_experiment_file"]


@dataclass(frozen=True)
class ExperimentSummary:
    """What running an experiment file takes, by the file."""

    path: Path
    experiment: str
    agents: dict[str, int]  # condition -> agents of each of its runs
    repeats: int
    run_s: float  # the protocol's duration of one run (its ``duration_s``, at its scale)

    @property
    def runs(self) -> int:
        return len(self.agents) * self.repeats

    @property
    def wall_s(self) -> float:
        """Protocol time of every run back to back (each run's start-up comes on top)."""
        return self.runs * self.run_s

    def __str__(self) -> str:
        counts = set(self.agents.values())
        agents = (
            f"{counts.pop()} agents"
            if len(counts) == 1
            else "agents " + ", ".join(f"{c}: {n}" for c, n in self.agents.items())
        )
        return (
            f"{self.path}: OK — experiment {self.experiment}, {agents}, "
            f"{len(self.agents)} conditions ({', '.join(self.agents)}) x {self.repeats} repeats "
            f"= {self.runs} runs of {self.run_s:g} s; estimated wall time "
            f"{_hours(self.wall_s)} at --time-scale 1 (start-up of each run on top)"
        )


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def _run_agents(protocol: Any, village_agents: int) -> int:
    """A run's agents: the protocol's own population at its scale (culture), else the
    village's."""
    population = getattr(protocol, "population", None)
    if population is None or not hasattr(population, "agents"):
        return village_agents
    return max(2, round(int(population.agents) * float(getattr(protocol, "scale", 1.0))))


def validate_experiment_file(path: Path) -> ExperimentSummary:
    """Check an experiment file whole; what it will run, or a ConfigError."""
    exp = load_experiment_file(path, known=EXPERIMENTS)
    runner: Any = importlib.import_module(EXPERIMENTS[exp.experiment])
    protocol = parse_protocol(exp, runner.PROTOCOL_MODEL, path)
    opts = ExperimentOptions(out=path.parent)
    # the village each run gets: made by the runner where it makes it (its roster or cast of
    # agents), else the condition's village as it is
    make = getattr(runner, "make_config", None)
    build = make(protocol, opts) if make is not None else None
    agents: dict[str, int] = {}
    problems = []
    for cond in exp.conditions:
        try:
            data = village_data(exp, cond, opts, seed=0)
            cfg = parse_config(data, path) if build is None else build(data, cond, 0)
        except ConfigError as err:  # every condition's problems at once, each named
            problems += [
                type(p)(f"village.{p.path} (condition {cond.name})", p.message)
                for p in err.problems
            ]
            continue
        calls = LLM_CALLS.get(exp.experiment, ())
        problems += [
            type(p)(f"{p.path} (condition {cond.name})", p.message)
            for p in unknown_llm_keys(cfg.llm, calls, "village.llm")
        ]
        agents[cond.name] = _run_agents(protocol, len(resolve_agents(cfg)))
    if problems:
        raise ConfigError(path, problems, EXPERIMENT_FILE)
    run_s = float(getattr(protocol, "duration_s", 0.0)) * float(getattr(protocol, "scale", 1.0))
    return ExperimentSummary(path, exp.experiment, agents, exp.repeats, run_s)
