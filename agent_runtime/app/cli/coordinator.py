"""``piano run --workers N`` with N > 1: the coordinating process opens the shared parts, workers host
the agents (see :mod:`agent_runtime.app.workers`).

The coordinator is a :class:`~agent_runtime.app.village.Village` that hosts no agents: it
starts (or connects to) Redis, the broker and the world, then a :class:`WorkerPool` of
``piano worker`` children pointed at them, prints the village's progress from the workers'
``run/progress`` messages, and at the end writes the run's ``metrics.json`` from the
workers' own (their folders are ``<run>/workers/<K>``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.app.workers import WorkerPool, WorkerSpec
from agent_runtime.bus import topics
from agent_runtime.config.models import VillageConfig

__all__ = ["run_workers"]


def _aggregate(latest: dict[str, dict[str, Any]], started: float) -> dict[str, Any]:
    keys = ("agents", "decisions", "speech", "skills", "errors", "unresponsive")
    out: dict[str, Any] = {k: sum(int(p.get(k, 0)) for p in latest.values()) for k in keys}
    out["elapsed_s"] = round(time.time() - started, 1)
    out["workers_reporting"] = len(latest)
    return out


async def run_workers(
    cfg: VillageConfig,
    run_id: str,
    run_dir: Path,
    args: argparse.Namespace,
    workers: int,
    progress: Callable[[dict[str, Any]], None],
) -> int:
    """Run the village of ``args.config`` (with ``args.agents``/``args.llm``) on workers;
    ``progress`` gets the village-wide figures every ``run.progress_every`` seconds."""
    from agent_runtime.app.shards import shard_addresses
    from agent_runtime.app.village import Village, VillageOptions

    opts = VillageOptions(run_dir=run_dir, run_id=run_id, host_agents=False)
    opts.web_port = None if getattr(args, "no_web", True) else args.web_port
    print(f"run {run_id}: {workers} workers, {cfg.world.kind} world, folder {run_dir}", flush=True)
    latest: dict[str, dict[str, Any]] = {}
    async with Village(cfg, opts) as village:
        assert village.bus is not None and village.world is not None
        if village.redis_url is None or village.mqtt_url is None:
            raise RuntimeError("the coordinator needs Redis and broker URLs to hand to workers")
        world = village.world.join_address or "none"
        if world != "none":
            print(
                f"Minecraft {cfg.world.version} server: join at {world} (offline mode)", flush=True
            )
        if village.web is not None:
            print(f"live view: {village.web.url or village.web.error}", flush=True)
        reports = village.bus.subscribe(topics.run_progress(run_id), maxsize=1024)

        def on_report() -> None:
            while (msg := reports.get_nowait()) is not None:
                shard = msg.payload.get("shard") or ["?"]
                latest[str(shard[0])] = msg.payload

        reports.on_put = on_report
        village.options.progress = lambda _: progress(_aggregate(latest, village.started_at))
        spec = WorkerSpec(
            config=Path(args.config),
            run_id=run_id,
            run_dir=run_dir,
            count=workers,
            redis_url=village.redis_url,
            mqtt_url=village.mqtt_url,
            world=world,
            admin_url=village.world.admin_url,
            shards=shard_addresses(village.world),
            agents=args.agents,
            llm=args.llm,
        )
        async with WorkerPool(spec) as pool:
            print("workers started; Ctrl-C stops cleanly", flush=True)
            reason = await village.run(cfg.run.duration)
        reports.close()
        merged = pool.merge_into(run_dir)
        merged["coordinator"] = {"stop_reason": reason, "wall_s": time.time() - village.started_at}
    merged["run_id"] = run_id
    (run_dir / "metrics.json").write_text(json.dumps(merged, indent=2, default=str))
    print(f"run {run_id} stopped ({reason}); results in {run_dir}", flush=True)
    return 0
