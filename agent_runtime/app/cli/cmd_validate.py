"""``piano validate CONFIG``: check a village or experiment file; exit 2 naming file and field.

A file whose top level names an ``experiment`` is an experiment file
(``experiments/<name>/config.yaml``) and is checked whole: protocol and every condition's
village (:mod:`experiments.validation`); any other file is a village file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agent_runtime.app.cli.user_errors import refuse
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, read_yaml, resolve_agents
from experiments.validation import validate_experiment_file


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("validate", help="validate a village YAML file")
    p.add_argument("config", help="path to a village YAML or an experiment's config.yaml")


def _is_experiment_file(path: Path) -> bool:
    try:
        data = read_yaml(path)
    except ConfigError:
        return False  # the village loader reports it, naming the file
    return isinstance(data, dict) and "experiment" in data


def run(args: argparse.Namespace) -> int:
    if _is_experiment_file(Path(args.config)):
        try:
            print(validate_experiment_file(Path(args.config)))
        except ConfigError as err:
            return refuse(err, "piano validate")
        return 0
    try:
        cfg = load_config(args.config)
    except ConfigError as err:
        return refuse(err, "piano validate")
    agents = resolve_agents(cfg)
    print(
        f"{args.config}: OK — {len(agents)} agents, world {cfg.world.kind}, "
        f"llm {cfg.llm.provider}, modules {cfg.modules.preset}: {', '.join(cfg.modules.enabled())}"
    )
    return 0
