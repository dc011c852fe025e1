"""``piano experiment NAME [CONFIG]``: run one of the paper's experiments and write its folder
(raw CSV/JSONL, ``metrics.json``, PNG plots, ``report.md``)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

from agent_runtime.app.cli.user_errors import refuse
from agent_runtime.app.world_setup import WorldError
from agent_runtime.clock import wall_time
from agent_runtime.config.errors import ConfigError
from agent_runtime.services import ServiceError

NAMES = ("specialization", "tax", "item_progression", "social_perception", "culture", "chef")
#: the experiments whose runner takes ``--scale`` (its protocol's agents, area and duration)
SCALED = ("culture",)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("experiment", help="run an experiment of the paper (see experiments/)")
    p.add_argument("name", choices=NAMES, help="which experiment")
    p.add_argument(
        "config", nargs="?", help="experiment file (default: experiments/NAME/config.yaml)"
    )
    p.add_argument("--llm", choices=["heuristic", "openai"], help="override llm.provider")
    p.add_argument("--repeats", type=int, help="repeats per condition (default: the file's)")
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="multiply every protocol time and cadence (e.g. 0.05 for a smoke run)",
    )
    p.add_argument("--out", default="runs/experiments", help="parent folder of the output folder")
    p.add_argument("--world", choices=["embedded", "none"], help="override world.kind")
    p.add_argument("--agents", type=int, help="run with this many agents (smoke runs)")
    p.add_argument("--conditions", help="comma-separated subset of the file's conditions")
    p.add_argument("--seed", type=int, help="base seed (default: the file's run.seed)")
    p.add_argument(
        "--scale",
        type=float,
        help="culture only: run the paper's protocol at this scale, 0 to 1 (agents, area, "
        "duration); any other experiment refuses it",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="host the agents in N worker processes sharing Redis, the broker and the world "
        "(default 1: all agents in this process)",
    )
    p.add_argument(
        "--shards",
        type=int,
        help="culture: split the area over K Minecraft servers, one rectangle each "
        "(default: the file's protocol.shards)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def run(args: argparse.Namespace) -> int:
    from experiments.registry import run as run_experiment
    from experiments.spec import ExperimentOptions

    if not 0 < args.time_scale <= 100:
        print("--time-scale must be in (0, 100]", file=sys.stderr)
        return 2
    if args.repeats is not None and args.repeats < 1:
        print("--repeats must be at least 1", file=sys.stderr)
        return 2
    if args.scale is not None and args.name not in SCALED:
        print(
            f"--scale: only {', '.join(SCALED)} runs its protocol at a scale; {args.name}'s "
            "size is its file's (--agents for fewer agents, --time-scale for shorter times)",
            file=sys.stderr,
        )
        return 2
    if args.scale is not None and not 0 < args.scale <= 1:
        print("--scale must be in (0, 1]", file=sys.stderr)
        return 2
    if args.agents is not None and args.agents < 1:
        print("--agents must be at least 1", file=sys.stderr)
        return 2
    if args.workers < 1:
        print("--workers must be at least 1", file=sys.stderr)
        return 2
    if args.shards is not None and not (1 <= args.shards <= 64 and args.name == "culture"):
        print(
            "--shards: 1 to 64, for culture only (other experiments: world.shards in "
            "the village section of their file)",
            file=sys.stderr,
        )
        return 2

    def progress(msg: str) -> None:
        if not args.quiet:
            print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    opts = ExperimentOptions(
        out=Path(args.out),
        llm=args.llm,
        repeats=args.repeats,
        time_scale=args.time_scale,
        world=args.world,
        agents=args.agents,
        conditions=tuple(c for c in (args.conditions or "").split(",") if c),
        seed=args.seed,
        scale=args.scale,
        workers=args.workers,
        shards=args.shards,
        progress=progress,
    )
    config = Path(args.config) if args.config else None
    started = wall_time()

    async def main() -> tuple[Path, object]:
        # one Ctrl-C or SIGTERM stops the whole experiment: the current run ends early,
        # no further run starts, and the report covers the runs done
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            return await run_experiment(args.name, config, replace(opts, stop=stop))
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    try:
        out, _ = asyncio.run(main())
    except (ConfigError, KeyError, ValueError) as err:
        return refuse(err, "piano experiment")
    except (ServiceError, WorldError) as err:
        print(f"piano experiment: {err}", file=sys.stderr)
        return 1
    print(f"experiment {args.name} done in {wall_time() - started:.1f}s; results in {out}")
    print(f"report: {out / 'report.md'}")
    return 0
