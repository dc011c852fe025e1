"""``piano bench skills``: each skill many times from typical starting points, N agents at once.

For each number of agents (``--agents 1,5``; ``--many`` adds 20) a fresh embedded server
runs ``--rounds`` rounds of every scenario (``agent_runtime.app.skills_bench``) with that
many fresh bodies at once, then (unless ``--no-climb``) that many tech-tree climbs at once.
Prints one JSON object: per level, per skill step: runs, success rate, time p50/p95 (s, of
successes), failures by kind (``unknown`` = the body gave no type), the most common reasons,
and where the time went per run (ms: path planning, walking, digging, drops).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.skills_bench import SCENARIOS, Bench, Tally
from agent_runtime.config.models import DEFAULT_VERSION


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("skills", help="success rate and time of every skill, N agents at once")
    p.add_argument("--agents", default="1,5", help="comma-separated numbers of agents at once")
    p.add_argument("--many", action="store_true", help="also run with 20 agents at once")
    p.add_argument("--rounds", type=int, default=4, help="rounds of each scenario per level")
    p.add_argument("--only", default="", help="comma-separated scenario names (default: all)")
    p.add_argument("--no-climb", action="store_true", help="skip the tech-tree climbs")
    p.add_argument("--climb-limit", type=float, default=600.0, help="seconds per climb")
    p.add_argument("--server-log", default=None, help="keep the server log in this file")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--version",
        default=DEFAULT_VERSION,
        help="Minecraft version served and spoken (default %(default)s)",
    )
    add_json_out(p)


async def _level(args: argparse.Namespace, agents: int, rng: random.Random) -> dict[str, Any]:
    from bots.admin import AdminClient
    from bots.server_host import EmbeddedServer
    from bots.server_options import ServerOptions
    from bots.transport import JSPyBridgeTransport

    only = {s for s in args.only.split(",") if s}
    scenarios = [s for s in SCENARIOS if not only or s.name in only]
    tallies: dict[str, Tally] = {}
    out: dict[str, Any] = {"agents": agents}
    with tempfile.TemporaryDirectory(prefix="piano-bench-skills-") as tmp:
        server = EmbeddedServer(
            Path(tmp) / "world",
            ServerOptions(max_players=agents + 10, version=args.version),
            log_path=Path(args.server_log or Path(tmp) / "server.log"),
        )
        async with server:
            assert server.admin_url is not None
            places = {n: (float(p.x), float(p.y), float(p.z)) for n, p in server.places.items()}
            async with (
                AdminClient(server.admin_url) as admin,
                JSPyBridgeTransport(spawn_timeout=60.0) as transport,
            ):
                bench = Bench(transport, admin, server.port, places, rng, version=args.version)
                t0 = time.monotonic()
                for scenario in scenarios:
                    for _ in range(args.rounds):
                        await bench.round(scenario, agents, tallies)
                out["scenarios_s"] = round(time.monotonic() - t0, 1)
                out["skills"] = {k: t.summary() for k, t in tallies.items()}
                out["teleports_resent"] = bench.teleports_resent
                if not args.no_climb:
                    await bench.restore("village_centre")
                    climbs = [bench.climb(args.climb_limit) for _ in range(agents)]
                    out["climb"] = await asyncio.gather(*climbs)
                out["blocks_restored"] = bench.blocks_restored
    return out


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    levels = [int(a) for a in args.agents.split(",") if a]
    if args.many and 20 not in levels:
        levels.append(20)
    rng = random.Random(args.seed)
    result: dict[str, Any] = {
        "bench": "skills",
        "rounds": args.rounds,
        "version": args.version,
        "cpus": os.cpu_count(),
        "load_avg_start": [round(v, 2) for v in os.getloadavg()],
        "levels": [],
    }
    for n in levels:
        result["levels"].append(await _level(args, n, rng))
    result["load_avg_end"] = [round(v, 2) for v in os.getloadavg()]
    return result


def run(args: argparse.Namespace) -> int:
    if args.rounds < 1 or any(int(a) < 1 for a in args.agents.split(",") if a):
        raise SystemExit("--rounds and --agents must be positive")
    since = Measurement()
    emit(asyncio.run(bench(args)), args, since)
    return 0
