"""``piano``: validate, run, server, join, experiment, worker, replay, llm, bench.

Each command lives in its own module exporting ``add_parser(subparsers)`` and
``run(args) -> int``; modules are imported only when listed commands are built,
and nothing is started at import time.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

COMMANDS: dict[str, str] = {
    "validate": "agent_runtime.app.cli.cmd_validate",
    "run": "agent_runtime.app.cli.cmd_run",
    "server": "agent_runtime.app.cli.cmd_server",
    "join": "agent_runtime.app.cli.cmd_join",
    "experiment": "agent_runtime.app.cli.cmd_experiment",
    "replay": "agent_runtime.app.cli.cmd_replay",  # web view
    "worker": "agent_runtime.app.cli.cmd_worker",
    "faults": "agent_runtime.app.cli.cmd_faults",
    "llm": "agent_runtime.app.cli.cmd_llm",
    "docs": "agent_runtime.app.cli.cmd_docs",  # figures from result files
    "plan": "agent_runtime.app.cli.cmd_plan",  # capacity from measured costs
}

BENCHES: dict[str, str] = {
    "runtime": "agent_runtime.app.cli.bench_runtime",
    "bodies": "agent_runtime.app.cli.bench_bodies",
    "server": "agent_runtime.app.cli.bench_server",
    "llm": "agent_runtime.app.cli.bench_llm",
    "cost": "agent_runtime.app.cli.bench_cost",  # the LLM bill per agent-hour
    "skills": "agent_runtime.app.cli.bench_skills",
    "village": "agent_runtime.app.cli.bench_village",  # world shards
    "hostile": "agent_runtime.app.cli.bench_hostile",  # cheating clients
}


def _load(path: str) -> object | None:
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as err:
        if err.name == path:
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="piano", description="PIANO-style agent villages for Minecraft"
    )
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for path in COMMANDS.values():
        mod = _load(path)
        if mod is not None:
            mod.add_parser(sub)  # type: ignore[attr-defined]
    bench = sub.add_parser("bench", help="benchmarks that print JSON")
    bench_sub = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")
    for path in BENCHES.values():
        mod = _load(path)
        if mod is not None:
            mod.add_parser(bench_sub)  # type: ignore[attr-defined]
    return parser


def _module_for(args: argparse.Namespace) -> object:
    if args.command == "bench":
        return importlib.import_module(BENCHES[args.bench])
    return importlib.import_module(COMMANDS[args.command])


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(2, args.verbose)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    mod = _module_for(args)
    try:
        code: int = mod.run(args)  # type: ignore[attr-defined]
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
