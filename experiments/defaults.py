"""What ``piano experiment NAME`` runs by default, computed from its file and its runner.

Agents a run (the village the runner builds for the first run), conditions, repeats and the
protocol's seconds a run and in all at ``--time-scale 1``; ``piano docs`` renders the table
in docs/experiments.md from here, so the page follows the files.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.config.loader import resolve_agents
from experiments.registry import EXPERIMENTS, default_config
from experiments.runner_base import parse_protocol
from experiments.spec import ExperimentOptions, load_experiment_file, plan_runs

__all__ = ["Defaults", "defaults"]


@dataclass(frozen=True)
class Defaults:
    name: str
    agents: int  # in one run
    conditions: tuple[str, ...]
    repeats: int
    run_s: float  # protocol seconds of one run at --time-scale 1

    @property
    def runs(self) -> int:
        return len(self.conditions) * self.repeats

    @property
    def total_s(self) -> float:
        """Protocol seconds of every run one after the other (each run's start-up apart)."""
        return self.runs * self.run_s


def defaults(name: str, path: Path | None = None) -> Defaults:
    """The defaults of experiment ``name`` (its file: ``path`` or the shipped one)."""
    path = path or default_config(name)
    exp = load_experiment_file(path, EXPERIMENTS)
    runner = importlib.import_module(EXPERIMENTS[name])
    p: Any = parse_protocol(exp, runner.PROTOCOL_MODEL, path)
    opts = ExperimentOptions(out=Path("runs"))
    run_s = float(p.duration_s)
    if hasattr(runner, "resize"):  # culture: the paper's protocol times its own scale
        agents = int(runner.resize(p.population, p.scale, None).agents)
        run_s *= p.scale
    else:
        maker = runner.make_config(p, opts) if hasattr(runner, "make_config") else None
        first = next(plan_runs(exp, opts, opts.out, maker))
        agents = len(resolve_agents(first.config))
    return Defaults(name, agents, tuple(c.name for c in exp.conditions), exp.repeats, run_s)
