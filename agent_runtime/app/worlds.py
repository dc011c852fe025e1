"""Opening the world a village lives in: none (no-op bodies), one server (embedded or external,
:mod:`agent_runtime.app.world_setup`), or world shards (:mod:`agent_runtime.app.shards`); plus
the bot transport that connects the bodies to it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from agent_runtime.app.shards import open_shards
from agent_runtime.app.world_setup import ServerSpot, WorldHandle, WorldRun, open_server
from agent_runtime.config.models import VillageConfig
from agent_runtime.run.events import EventLog

if TYPE_CHECKING:
    from agent_runtime.app.launchers import ServerLauncher

__all__ = ["open_world"]


@contextlib.asynccontextmanager
async def open_world(
    cfg: VillageConfig,
    run_dir: Path,
    events: EventLog,
    *,
    admin_url: str | None = None,
    bodies: bool = True,
    servers: ServerLauncher | None = None,
) -> AsyncIterator[WorldHandle]:
    """Open the configured world. ``admin_url`` reaches the admin API of an embedded server
    that another process started (a worker's world is ``external`` plus that URL); with
    ``bodies=False`` no bot transport is started (the coordinator of workers). With
    ``world.shards`` every shard's server is opened and bodies are routed between them
    (agent_runtime/app/shards.py); with ``servers`` (``--cluster``) each embedded shard's
    server runs as an actor of the cluster (agent_runtime/app/launchers/world_shards.py)."""
    w = cfg.world
    if w.kind == "none":
        yield WorldHandle(kind="none", null_skill_seconds=w.null_skill_seconds)
        return
    async with contextlib.AsyncExitStack() as stack:
        run = WorldRun(stack, cfg, run_dir, events)
        if w.shards:
            handle = await open_shards(run, servers)
        else:
            spot = ServerSpot(
                kind=w.kind,
                host=w.host,
                port=w.port,
                admin_port=w.admin_port,
                layout=w.layout,
                admin_url=admin_url,
            )
            handle = await open_server(run, spot)
        if not bodies:
            yield handle
            return
        from bots.transport import JSPyBridgeTransport

        handle.use_transport(
            await stack.enter_async_context(
                JSPyBridgeTransport(
                    bots_per_process=w.bots_per_process,
                    seed=cfg.run.seed,
                    spawn_timeout=60.0,
                    hearing_radius=w.hearing_radius,
                )
            )
        )
        yield handle
