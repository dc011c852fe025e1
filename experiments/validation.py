"""``piano validate`` for experiment files: the file, its protocol and every condition's village.

An experiment file (``experiments/<name>/config.yaml``) is not a village file: it wraps one
(``village:``) with conditions and a protocol. :func:`validate_experiment_file` checks all of
it the way ``piano experiment`` would before its first run: the file's own fields, the
protocol against the runner's protocol model, and the village that each condition makes
(condition preset, community goal and dotted overrides applied). Every problem raises
:class:`~agent_runtime.config.errors.ConfigError` naming the file and the field.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from agent_runtime.config.loader import parse_config
from experiments.registry import EXPERIMENTS
from experiments.runner_base import parse_protocol
from experiments.spec import ExperimentOptions, load_experiment_file, village_data

__all__ = ["validate_experiment_file"]


def validate_experiment_file(path: Path) -> str:
    """Check an experiment file whole; returns a one-line summary, raises ConfigError."""
    exp = load_experiment_file(path, known=EXPERIMENTS)
    model: Any = importlib.import_module(EXPERIMENTS[exp.experiment]).PROTOCOL_MODEL
    parse_protocol(exp, model, path)
    opts = ExperimentOptions(out=path.parent)
    for cond in exp.conditions:
        parse_config(village_data(exp, cond, opts, seed=0), f"{path} (condition {cond.name})")
    conditions = ", ".join(c.name for c in exp.conditions)
    return (
        f"{path}: OK — experiment {exp.experiment}, {len(exp.conditions)} conditions "
        f"({conditions}), {exp.repeats} repeats"
    )
