"""``piano bench village``: a whole village with real bodies on N embedded server shards.

Builds a village of ``--agents`` agents (heuristic brain, hashed embeddings) whose world is
``--shards`` embedded flying-squid servers on free loopback ports, side by side along x
(each shard one region with its own town and a bot budget of ``ceil(agents / shards)``),
runs it for ``--duration`` seconds after every body joined and prints one JSON object:
kicks and disconnects, agents unresponsive at the end and at any progress record, the
scheduling lag, shard transfers, bots per shard and each server's CPU. ``--shards 1`` is the
single-world baseline on the same code path.

``--workers N`` (N > 1) and ``--cluster ray[...]`` run the same village the way
``piano run --workers/--cluster`` does (:mod:`.bench_village_workers`): the agents on N
worker processes or Ray actors, the figures from the workers. ``--ray-nodes K`` with
``--cluster ray`` starts a local Ray of K nodes on 127.0.0.1 for the run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.cli.bench_flags import add_bots_per_process
from agent_runtime.app.launchers import CLUSTER_HELP, ClusterSpec, parse_cluster


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "village",
        help="a village with real bodies on several embedded server shards",
        description=__doc__,
    )
    p.add_argument("--agents", type=int, default=10)
    p.add_argument("--shards", type=int, default=2)
    p.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    p.add_argument("--seed", type=int, default=1)
    add_bots_per_process(p, default=25)
    p.add_argument(
        "--cross",
        type=int,
        default=0,
        help="teleport this many agents into the next shard's town when the measurement "
        "starts (through the admin API), so their bodies move servers",
    )
    p.add_argument(
        "--region", type=int, default=400, help="blocks of x per shard (>= 128: a whole town)"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="agents on this many worker processes (or actors), as piano run --workers N; "
        "1: every agent in this process",
    )
    p.add_argument("--cluster", help=f"{CLUSTER_HELP}; with it --workers is at least 2")
    p.add_argument(
        "--ray-nodes",
        type=int,
        default=1,
        help="with --cluster ray: start a local Ray of this many nodes on 127.0.0.1",
    )
    add_json_out(p)


def village_config(
    agents: int, shards: int, seed: int, bots_per_process: int, region: int = 400
) -> Any:
    from agent_runtime.config.loader import parse_config

    budget = math.ceil(agents / shards)
    half = region * shards / 2
    specs = []
    for k in range(shards):
        x_min = -half + k * region
        specs.append(
            {
                "name": f"shard{k}",
                "region": {"x_min": x_min, "x_max": x_min + region, "z_min": -200, "z_max": 200},
                "max_bots": budget,
            }
        )
    return parse_config(
        {
            "run": {"seed": seed, "duration": None, "embedder": "hashing", "progress_every": 5},
            "world": {"kind": "embedded", "shards": specs, "bots_per_process": bots_per_process},
            "llm": {"provider": "heuristic"},
            "agent_templates": [{"count": agents, "random_personality": True}],
        }
    )


async def _bench(args: argparse.Namespace) -> dict[str, Any]:
    import psutil

    from agent_runtime.app.cli.bench_village_workers import machine_busy_seconds
    from agent_runtime.app.cli.run_usage import RunUsage
    from agent_runtime.app.metrics import percentiles
    from agent_runtime.app.shards import ShardedBody
    from agent_runtime.app.village import Village, VillageOptions

    cfg = village_config(args.agents, args.shards, args.seed, args.bots_per_process, args.region)
    peak_unresponsive = 0
    with tempfile.TemporaryDirectory(prefix="piano-bench-village-") as tmp:

        def progress(info: dict[str, Any]) -> None:
            nonlocal peak_unresponsive
            peak_unresponsive = max(peak_unresponsive, int(info.get("unresponsive", 0)))

        transfers: list[dict[str, Any]] = []

        def listen(event: dict[str, Any]) -> None:
            if event.get("type") == "shard_transfer":
                transfers.append(event)

        opts = VillageOptions(run_dir=Path(tmp) / "run", run_id="bench-village", progress=progress)
        t0 = time.monotonic()
        async with Village(cfg, opts) as v:
            joined_s = time.monotonic() - t0
            v.events.add_listener(listen)
            assert v.world is not None and v.world.router is not None
            router = v.world.router
            procs = {s.name: psutil.Process(s.world.server.pid) for s in router.shards}
            for proc in procs.values():
                proc.cpu_percent(None)
            lag_from = len(v.metrics.lags_ms)
            # this process and all it started: servers, body hosts, Redis and the broker
            usage = RunUsage([os.getpid()])
            a_t, a_busy = time.monotonic(), machine_busy_seconds()
            await _send_across(v, args.cross)
            await v.run(duration=args.duration)
            cpu = {name: round(proc.cpu_percent(None), 1) for name, proc in procs.items()}
            tree = usage.result([os.getpid()])
            wall = time.monotonic() - a_t
            busy = machine_busy_seconds() - a_busy
            lags = list(v.metrics.lags_ms[lag_from:])
            moves = [float(e["seconds"]) for e in transfers]
            bodies = [b for b in v.bodies.values() if isinstance(b, ShardedBody)]
            kicks = sum(len(getattr(b.inner, "kicks", ())) for b in bodies)
            unresponsive = v.unresponsive()
            return {
                "bench": "village",
                "agents": len(v.agents),
                "shards": args.shards,
                "bots_per_shard": router.counts(),
                "join_all_seconds": round(joined_s, 1),
                "measured_seconds": args.duration,
                "kicks": kicks,
                "bodies_disconnected": sum(
                    1 for b in bodies if not getattr(b.inner, "connected", True)
                ),
                "unresponsive_agents_end": len(unresponsive),
                "unresponsive_agents_peak": max(peak_unresponsive, len(unresponsive)),
                "unresponsive_reasons": sorted(set(unresponsive.values()))[:5],
                "sched_lag_ms": percentiles(lags),
                "shard_transfers": router.transfers,
                "transfer_seconds": percentiles(moves),
                "failed_transfers": router.failed_transfers,
                "server_cpu_percent": cpu,
                # every process of the run over the measured window (CPU: % of one core)
                "all_processes": tree,
                "cpu_cores_per_agent": round(float(tree["cpu_percent"]) / 100 / len(v.agents), 4),
                "rss_mb_per_agent": round(float(tree["rss_mb"]) / len(v.agents), 2),
                "skills": v.events.counts.get("skill_outcome", 0),
                "decisions": v.events.counts.get("decision", 0),
                "module_errors": v.events.counts.get("module_error", 0),
                # every process on the machine (the run's and anything beside it)
                "machine_cpu_percent": round(100 * busy / wall, 1),
                "machine_cores": os.cpu_count(),
            }


async def _send_across(v: Any, count: int) -> None:
    """Teleport ``count`` agents (on their own server) into the next shard's town: a bench
    stimulus, not a decision; the body notices it left its region and moves servers."""
    from agent_runtime.app.shards import ShardedBody

    router = v.world.router
    bodies = [b for b in v.bodies.values() if isinstance(b, ShardedBody)][:count]
    for i, body in enumerate(bodies):
        shards = router.shards
        dest = shards[(shards.index(body.shard) + 1) % len(shards)]
        cx, cz = dest.settings.region.centre()
        ground = v.config.world.layout.ground_level
        await body.shard.world.admin.teleport(
            body.name, cx + 3 + i % 5, ground + 3, cz + 3 + i // 5
        )


def where(args: argparse.Namespace) -> ClusterSpec | None:
    """The ``--cluster`` asked for (``ValueError`` names what is wrong); with one, at least
    two workers (``args.workers`` raised), as ``piano run`` does."""
    if args.workers < 1 or args.ray_nodes < 1:
        raise ValueError("need --workers >= 1 and --ray-nodes >= 1")
    cluster = parse_cluster(args.cluster) if args.cluster else None
    if args.ray_nodes > 1 and (cluster is None or cluster.address is not None):
        raise ValueError("--ray-nodes starts a local Ray: use it with --cluster ray")
    if cluster is not None:
        args.workers = max(2, args.workers)
    return cluster


def run(args: argparse.Namespace) -> int:
    if args.agents < 1 or args.shards < 1 or args.duration <= 0 or args.region < 128:
        print(
            json.dumps({"error": "need --agents, --shards >= 1, --duration > 0, --region >= 128"})
        )
        return 2
    try:
        cluster = where(args)
    except ValueError as err:
        print(json.dumps({"error": str(err)}))
        return 2
    if args.cross and args.workers > 1:
        print(json.dumps({"error": "--cross needs the one-process village (--workers 1)"}))
        return 2
    since = Measurement()
    if args.workers == 1:
        emit(asyncio.run(_bench(args)), args, since)
        return 0
    from agent_runtime.app.cli.bench_village_workers import bench_village_workers

    cfg = village_config(args.agents, args.shards, args.seed, args.bots_per_process, args.region)
    with contextlib.ExitStack() as stack:
        if args.ray_nodes > 1:
            from agent_runtime.app.launchers.local_cluster import local_ray_cluster

            cluster = stack.enter_context(local_ray_cluster(args.ray_nodes))
        result = asyncio.run(bench_village_workers(args, cfg, cluster))
    emit(result, args, since)
    return 0
