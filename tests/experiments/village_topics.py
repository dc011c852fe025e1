"""The topics an experiment's village hands every agent (its ``village.topics``), as a run
of the shipped experiment file loads them."""

from __future__ import annotations

import functools

from agent_runtime.config.loader import parse_config
from agent_runtime.config.topics import Topic
from experiments.registry import default_config
from experiments.spec import load_experiment_file


@functools.cache
def village_topics(experiment: str) -> dict[str, Topic]:
    exp = load_experiment_file(default_config(experiment))
    return {t.name: t for t in parse_config(exp.village).topics}
