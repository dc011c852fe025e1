"""``piano validate CONFIG``: check a village file; exit 2 with field-level messages if invalid."""

from __future__ import annotations

import argparse
import sys

from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, resolve_agents


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("validate", help="validate a village YAML file")
    p.add_argument("config", help="path to the village YAML")


def run(args: argparse.Namespace) -> int:
    try:
        cfg = load_config(args.config)
    except ConfigError as err:
        print(err.render(), file=sys.stderr)
        return 2
    agents = resolve_agents(cfg)
    print(
        f"{args.config}: OK — {len(agents)} agents, world {cfg.world.kind}, "
        f"llm {cfg.llm.provider}, modules {cfg.modules.preset}: {', '.join(cfg.modules.enabled())}"
    )
    return 0
