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
from experiments.runner_base import parse_protocol
from experiments.spec import ExperimentOptions, load_experiment_file, village_data

__all__ = ["PROTOCOL_MODELS", "validate_experiment_file"]

#: experiment -> (module, class) of its protocol model
PROTOCOL_MODELS: dict[str, tuple[str, str]] = {
    "specialization": ("experiments.specialization.runner", "SpecializationProtocol"),
    "tax": ("experiments.tax.protocol", "TaxProtocol"),
    "item_progression": ("experiments.item_progression.runner", "ItemProtocol"),
    "social_perception": ("experiments.social_perception.runner", "PerceptionProtocol"),
    "culture": ("experiments.culture.runner", "CultureProtocol"),
    "chef": ("experiments.chef.runner", "ChefProtocol"),
}


def validate_experiment_file(path: Path) -> str:
    """Check an experiment file whole; returns a one-line summary, raises ConfigError."""
    exp = load_experiment_file(path, known=PROTOCOL_MODELS)
    module, name = PROTOCOL_MODELS[exp.experiment]
    model: Any = getattr(importlib.import_module(module), name)
    parse_protocol(exp, model, path)
    opts = ExperimentOptions(out=path.parent)
    for cond in exp.conditions:
        parse_config(village_data(exp, cond, opts, seed=0), f"{path} (condition {cond.name})")
    conditions = ", ".join(c.name for c in exp.conditions)
    return (
        f"{path}: OK — experiment {exp.experiment}, {len(exp.conditions)} conditions "
        f"({conditions}), {exp.repeats} repeats"
    )
