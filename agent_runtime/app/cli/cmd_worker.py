"""``piano worker CONFIG --shard K/N --redis URL --mqtt URL``: one worker of a village.

Runs the agents of shard K of N (see :mod:`agent_runtime.app.workers`) against an external
Redis and MQTT broker until SIGTERM/SIGINT (or ``--duration``), and the world named by
``--world`` (``none`` or the HOST:PORT of a Minecraft server; with ``--admin-url`` the
embedded server's admin API places agents and hands out their starting inventory).
Passwords of Redis and the broker come in the environment (``PIANO_REDIS_PASSWORD``,
``PIANO_MQTT_USER``, ``PIANO_MQTT_PASSWORD``: agent_runtime/services/credentials.py), never
on the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

from agent_runtime import event_loop, gc_settings
from agent_runtime.app.cli.cmd_run import apply_cli
from agent_runtime.app.cli.user_errors import STARTUP_ERRORS, refuse
from agent_runtime.app.cli.world_version import resolve_external_version, version_set_in
from agent_runtime.app.shards import SHARDS_ENV, attach_shards
from agent_runtime.app.workers import ADMIN_URL_ENV, parse_shard
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import load_config, with_overrides
from agent_runtime.config.models import VillageConfig
from agent_runtime.gc_settings import settle_after_startup
from agent_runtime.services.credentials import REDIS_PASSWORD_ENV, with_redis_password


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("worker", help="run one shard of a village against shared Redis/MQTT")
    p.add_argument("config", help="path to the village YAML")
    p.add_argument("--shard", required=True, help="K/N: this worker hosts agents i with i%%N == K")
    p.add_argument("--redis", required=True, help="redis:// URL shared by all workers")
    p.add_argument("--mqtt", required=True, help="mqtt:// URL shared by all workers")
    p.add_argument("--run-id", required=True, help="the run's id (the same for every worker)")
    p.add_argument("--world", default="none", help="none | HOST:PORT of the Minecraft server")
    p.add_argument(
        "--admin-url",
        help=f"admin API of the embedded server, token included (default: ${ADMIN_URL_ENV})",
    )
    p.add_argument("--run-dir", help="this worker's folder (default: runs/<run-id>/workers/K)")
    p.add_argument("--duration", type=float, help="seconds (default: until SIGTERM)")
    p.add_argument("--agents", type=int, help="as `piano run --agents`")
    p.add_argument("--llm", choices=["heuristic", "openai"], help="override llm.provider")
    p.add_argument(
        "--measure-after",
        type=float,
        help="forget scheduling lags measured before this many seconds (benchmarks' warm-up)",
    )


def worker_config(args: argparse.Namespace) -> VillageConfig:
    cfg = load_config(args.config)
    version_set = version_set_in(cfg)
    # the coordinator's world shards (agent_runtime/app/shards.py) replace --world
    shards = os.environ.get(SHARDS_ENV) if cfg.world.shards else None
    ns = argparse.Namespace(
        duration=None,
        llm=args.llm,
        out=None,
        world=None if shards else args.world,
        agents=args.agents,
    )
    cfg = apply_cli(cfg, ns, args.config)
    if not (getattr(args, "admin_url", None) or os.environ.get(ADMIN_URL_ENV)):
        # an external server's version (the coordinator's embedded one serves world.version)
        cfg = resolve_external_version(cfg, args.config, version_set=version_set)
    redis = args.redis
    password = os.environ.get(REDIS_PASSWORD_ENV)  # the coordinator's, never on argv
    if password and "@" not in redis:
        redis = with_redis_password(redis, password)
    updates: dict[str, Any] = {
        "services.redis": redis,
        "services.mqtt": args.mqtt,
        "run.duration": args.duration,
    }
    cfg = with_overrides(cfg, updates, args.config)
    return attach_shards(cfg, shards, args.config) if shards else cfg


def run(args: argparse.Namespace) -> int:
    try:
        shard = parse_shard(args.shard)
        cfg = worker_config(args)
    except ValueError as err:
        return refuse(err, "piano worker")
    except ConfigError as err:
        return refuse(err, "piano worker")
    except STARTUP_ERRORS as err:  # world.version and the external server's version differ
        return refuse(err, f"piano worker {args.shard}")
    run_dir = Path(args.run_dir or Path(cfg.run.out) / args.run_id / "workers" / str(shard[0]))
    try:
        return event_loop.run(_run(cfg, args, shard, run_dir))
    except STARTUP_ERRORS as err:
        return refuse(err, f"piano worker {args.shard}")


def _measure_from_now(village: Any) -> None:
    """Benchmarks' warm-up is over: lags and collector figures count from now."""
    village.metrics.reset_lags()
    gc_settings.STATS.reset()


async def _run(
    cfg: VillageConfig, args: argparse.Namespace, shard: tuple[int, int], run_dir: Path
) -> int:
    from agent_runtime.app.village import Village, VillageOptions

    opts = VillageOptions(
        run_dir=run_dir,
        run_id=args.run_id,
        agent_limit=args.agents,
        shard=shard,
        admin_url=args.admin_url or os.environ.get(ADMIN_URL_ENV),
    )
    async with Village(cfg, opts) as village:
        settle_after_startup()  # one village for the life of this process
        print(f"worker {args.shard}: {len(village.agents)} agents running", flush=True)
        if args.measure_after:
            asyncio.get_running_loop().call_later(args.measure_after, _measure_from_now, village)
        reason = await village.run(cfg.run.duration)
    print(f"worker {args.shard} stopped ({reason})", flush=True)
    return 0
