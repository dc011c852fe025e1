"""The experiments ``piano experiment NAME`` knows, and the one entry point that runs them."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path
from typing import Any

from experiments.common import EXPERIMENTS_DIR
from experiments.files import experiment_dir, write_json
from experiments.spec import ExperimentOptions, load_experiment_file

#: name -> runner module, exporting ``async run_experiment(exp, opts, out) -> dict`` and
#: ``PROTOCOL_MODEL``, the model of the file's ``protocol:`` (``piano validate`` checks it)
EXPERIMENTS: dict[str, str] = {
    "specialization": "experiments.specialization.runner",
    "tax": "experiments.tax.runner",
    "item_progression": "experiments.item_progression.runner",
    "social_perception": "experiments.social_perception.runner",
    "culture": "experiments.culture.runner",
    "chef": "experiments.chef.runner",
}

#: name -> the labels of its own model calls besides the modules' (what ``llm.modules`` and
#: ``llm.priorities`` may name in its file: ``piano validate`` refuses any other key)
LLM_CALLS: dict[str, tuple[str, ...]] = {
    "tax": ("tax_feedback", "tax_vote", "tax_amendments", "tax_tally", "tax_constitution"),
    "culture": ("memes",),
    "specialization": ("role_inference",),
    "social_perception": ("likeability_scoring",),
}


def default_config(name: str) -> Path:
    return EXPERIMENTS_DIR / name / "config.yaml"


async def run(name: str, config: Path | None, opts: ExperimentOptions) -> tuple[Path, dict[str, Any]]:
    """Run experiment ``name``; returns its output folder and metrics."""
    if name not in EXPERIMENTS:
        raise KeyError(f"unknown experiment {name!r}; known: {sorted(EXPERIMENTS)}")
    path = config or default_config(name)
    exp = load_experiment_file(path)
    if exp.experiment != name:
        raise ValueError(f"{path} is a {exp.experiment!r} experiment file, not {name!r}")
    out = experiment_dir(opts.out, name)
    shutil.copyfile(path, out / "config.yaml")
    write_json(out / "options.json", {
        "experiment": name, "config": str(path), "llm": opts.llm, "repeats": opts.repeats,
        "time_scale": opts.time_scale, "world": opts.world, "agents": opts.agents,
        "conditions": list(opts.conditions), "seed": opts.seed, "scale": opts.scale,
        "workers": opts.workers, "shards": opts.shards,
    })
    runner = importlib.import_module(EXPERIMENTS[name])
    metrics: dict[str, Any] = await runner.run_experiment(exp, opts, out)
    return out, metrics
