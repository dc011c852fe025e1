"""``piano run`` with its agents on worker processes or a cluster: the coordinator
(:func:`agent_runtime.app.coordinator.coordinate`) with what the command prints."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.app.coordinator import coordinate
from agent_runtime.app.launchers import ClusterSpec
from agent_runtime.config.models import VillageConfig

__all__ = ["run_workers"]


async def run_workers(
    cfg: VillageConfig,
    run_id: str,
    run_dir: Path,
    args: argparse.Namespace,
    workers: int,
    progress: Callable[[dict[str, Any]], None],
    cluster: ClusterSpec | None = None,
) -> int:
    """Run the village of ``args.config`` (with ``args.agents``/``args.llm``) on workers;
    ``progress`` gets the village-wide figures every ``run.progress_every`` seconds."""
    from agent_runtime.app.village import VillageOptions

    opts = VillageOptions(run_dir=run_dir, run_id=run_id)
    opts.services_host = getattr(args, "services_host", None) or opts.services_host
    opts.web_port = None if getattr(args, "no_web", True) else args.web_port
    where = f" on {cluster}" if cluster is not None else ""
    print(
        f"run {run_id}: {workers} workers{where}, {cfg.world.kind} world, folder {run_dir}",
        flush=True,
    )
    async with coordinate(
        cfg, opts, workers=workers, config=Path(args.config), agents=args.agents,
        llm=args.llm, cluster=cluster,
    ) as coord:  # fmt: skip
        village = coord.village
        village.options.progress = lambda _: progress(coord.aggregate())
        world = village.world.join_address if village.world is not None else None
        if world:
            print(
                f"Minecraft {cfg.world.version} server: join at {world} (offline mode)", flush=True
            )
        if village.web is not None:
            print(f"live view: {village.web.url or village.web.error}", flush=True)
        print("workers started; Ctrl-C stops cleanly", flush=True)
        reason = await village.run(cfg.run.duration)
    print(f"run {run_id} stopped ({reason}); results in {run_dir}", flush=True)
    return 0
