"""An embedded world shard whose server runs as an actor of the cluster (``--cluster``).

:func:`open_server_actor` is what :func:`agent_runtime.app.world_setup.open_server` does for
an embedded shard when the run has a :class:`~agent_runtime.app.launchers.ServerLauncher`:
the ports and the admin token are chosen here, once, and handed to the actor, so that every
incarnation of it (Ray restarts it, on another node if its node goes) serves the same
address and token; the bodies reconnect to it as they do when a server of one machine is
restarted. A task of the world watches the actor: each new incarnation is a
``service_restarted`` event (``service: minecraft``, the shard, its node, the seconds from
the old incarnation's end being noticed to the new one answering).

Not handled yet: an incarnation on a node with another address (a real multi-machine
cluster) would need the workers' bodies to move to it; here the coordinator's handle learns
the new address and the event says ``moved: true``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from typing import TYPE_CHECKING, Any, cast

from agent_runtime.app.launchers.server_actor import ServerSettings
from agent_runtime.app.world_setup import (
    ServerSpot,
    WorldError,
    WorldHandle,
    WorldRun,
    open_server,
)
from agent_runtime.run.events import EventLog
from agent_runtime.services import ServiceError
from agent_runtime.services.ports import free_port
from agent_runtime.tasks import cancel_and_wait
from bots.server_options import ServerOptions

if TYPE_CHECKING:
    from agent_runtime.app.launchers.handles import ServerHandle, ServerLauncher

__all__ = ["open_server_actor", "open_shard_server"]

log = logging.getLogger(__name__)


def _settings(run: WorldRun, spot: ServerSpot, servers: ServerLauncher) -> ServerSettings:
    assert spot.shard is not None
    cfg = run.cfg
    w = cfg.world
    run_dir = run.run_dir.absolute()  # the actor's process starts in another folder
    return ServerSettings(
        shard=spot.shard,
        world_dir=str(run_dir / f"world-{spot.shard}"),
        # a Ray of this run on this machine: the configured (loopback) address; an existing
        # cluster: the address of the node the actor lands on
        host=spot.host if servers.local else None,
        options=ServerOptions(
            port=spot.port or free_port(),
            admin_port=spot.admin_port or free_port(),
            version=w.version,
            seed=w.seed if w.seed is not None else cfg.run.seed,
            layout=spot.layout,
            body_key_file=run.body_key_file,  # its path: the actor shares this machine's disk
            agent_names=run.agent_names(),
        ),
        admin_token=secrets.token_urlsafe(24),
        log_path=str(run_dir / "logs" / f"server-{spot.shard}.log"),
        nice=os.getpriority(os.PRIO_PROCESS, 0),
    )


def _admin_url(settings: ServerSettings, info: dict[str, Any]) -> str:
    return f"http://piano:{settings.admin_token}@127.0.0.1:{info['admin_port']}"


async def open_shard_server(
    run: WorldRun, spot: ServerSpot, servers: ServerLauncher | None = None
) -> WorldHandle:
    """One shard's server: with ``servers`` (``--cluster``) an embedded shard's server runs
    as an actor of the cluster (:func:`open_server_actor`); otherwise as
    :func:`~agent_runtime.app.world_setup.open_server` starts (or checks) it."""
    if spot.kind == "embedded" and servers is not None and spot.shard is not None:
        handle = WorldHandle(
            kind=spot.kind,
            host=spot.host,
            port=spot.port,
            version=run.cfg.world.version,
            events=run.events,
        )
        return await open_server_actor(run, spot, servers, handle)
    return await open_server(run, spot)


async def open_server_actor(
    run: WorldRun, spot: ServerSpot, servers: ServerLauncher, handle: WorldHandle
) -> WorldHandle:
    """Start shard ``spot.shard``'s server as an actor and fill ``handle`` from it."""
    from agent_runtime.config.layout import Place
    from bots.admin import AdminClient

    stack, events = run.stack, run.events
    settings = _settings(run, spot, servers)
    await stack.enter_async_context(servers)  # connects to (or starts) the cluster
    try:
        server = await servers.start_server(settings)
    except ServiceError as err:
        raise WorldError(f"the embedded Minecraft server {spot.shard}: {err}") from err
    stack.push_async_callback(server.stop)
    info = server.info
    handle.host, handle.port = str(info["host"]), int(info["port"])
    handle.server = server
    handle.admin_url = _admin_url(settings, info)
    handle.body_key_file = str(run.body_key_file)
    handle.places = {p["name"]: Place(**p) for p in info.get("places", [])}
    handle.admin = await stack.enter_async_context(AdminClient(handle.admin_url))
    events.emit(
        "world_started",
        kind="embedded",
        address=server.address,
        admin_url=f"http://127.0.0.1:{info['admin_port']}",  # never the token
        places={k: [p.x, p.y, p.z] for k, p in handle.places.items()},
        shard=spot.shard,
        node=info.get("node"),
        actor=True,
    )
    watch = asyncio.create_task(
        _watch(servers, server, handle, events), name=f"world.watch[{spot.shard}]"
    )
    stack.push_async_callback(cancel_and_wait, watch)  # before the server's stop (LIFO)
    return handle


async def _watch(
    servers: ServerLauncher, server: ServerHandle, handle: WorldHandle, events: EventLog
) -> None:
    """Each time the shard's actor ends (lost with its node), wait for Ray's next
    incarnation and say so (``service_restarted``)."""
    shard = server.info.get("shard")
    while True:
        code = await server.wait()
        noticed = time.monotonic()
        old = server.address
        log.warning("shard %s's server actor ended (%s); Ray restarts it", shard, code)
        server = cast("ServerHandle", await servers.restart(server, 0.0))
        handle.server = server
        moved = server.address != old
        if moved:
            handle.host, handle.port = str(server.info["host"]), int(server.info["port"])
            log.warning("shard %s moved from %s to %s", shard, old, server.address)
        events.emit(
            "service_restarted",
            service="minecraft",
            shard=shard,
            seconds=round(time.monotonic() - noticed, 3),
            node=server.node,
            address=server.address,
            moved=moved,
            exit_code=code,
            message=f"shard {shard}'s server actor was lost and Ray restarted it",
        )
