"""One world server of a village: the embedded server or an external one (:func:`open_server`),
and the :class:`WorldHandle` the village's bodies and protocols reach it through.
:mod:`agent_runtime.app.worlds` chooses what to open (none, one server, or shards)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_runtime.config.layout import VillageLayout
from agent_runtime.config.loader import ResolvedAgent, resolve_agents
from agent_runtime.config.models import DEFAULT_VERSION, VillageConfig
from agent_runtime.interfaces import Body, BotSpec, BotTransport
from agent_runtime.run.events import EventLog
from agent_runtime.tasks import cancel_and_wait
from agent_runtime.world import Vec3

log = logging.getLogger(__name__)

CONNECT_ATTEMPTS = 3


class WorldError(RuntimeError):
    """The world could not be reached or a body could not join it; the message says why."""


@dataclass
class WorldHandle:
    kind: str
    host: str = "127.0.0.1"
    port: int = 0
    version: str = DEFAULT_VERSION
    places: dict[str, Any] = field(default_factory=dict)  # name -> Place
    admin_url: str | None = None
    transport: BotTransport | None = None
    server: Any = None
    admin: Any = None  # bots.admin.AdminClient on the embedded world
    router: Any = None  # agent_runtime.app.shards.ShardRouter when the world is sharded
    null_skill_seconds: float = 0.0  # ``kind: none``: how long a no-op body's skill takes
    events: EventLog | None = None  # the run's events (``body_equipped``)
    #: the run's body key file (bots/body_key.py) on a server of this run; None elsewhere
    body_key_file: str | None = None

    @property
    def join_address(self) -> str | None:
        return f"{self.host}:{self.port}" if self.kind != "none" else None

    def place_memories(self) -> list[str]:
        out = []
        for name, p in self.places.items():
            label = name.replace("_", " ")
            desc = getattr(p, "description", "") or f"The {label}"
            out.append(f"{desc.rstrip('.')} is at x={p.x}, y={p.y}, z={p.z}.")
        return out

    def use_transport(self, transport: BotTransport) -> None:
        """Bodies join through ``transport`` (one transport serves every shard)."""
        self.transport = transport
        if self.router is not None:
            self.router.use_transport(transport)

    async def connect(self, spec: ResolvedAgent) -> Body:
        """One agent's body: joined, placed at its spawn location and equipped (first login)."""
        if self.router is not None:
            body: Body = await self.router.connect(spec)
            return body
        spawn = spec.spawn_location
        if self.transport is None:
            from agent_runtime.body.null import NullBody

            return NullBody(
                spec.name,
                Vec3(x=spawn.x, y=spawn.y, z=spawn.z) if spawn else None,
                skill_seconds=self.null_skill_seconds,
            )
        body = await self.join(spec.name, (spawn.x, spawn.y, spawn.z) if spawn else None)
        if self.admin is not None:
            await self._equip(spec)
        return body

    async def join(self, name: str, spawn: tuple[float, float, float] | None) -> Body:
        """Log a body in on this server (a few attempts); raises WorldError."""
        if self.transport is None:
            raise WorldError(f"{name} cannot join {self.host}:{self.port}: no bot transport")
        bot = BotSpec(
            name=name,
            host=self.host,
            port=self.port,
            version=self.version,
            spawn=spawn,
            login_key_file=self.body_key_file,
        )
        for attempt in range(1, CONNECT_ATTEMPTS + 1):
            try:
                return await self.transport.connect(bot)
            except Exception as err:  # the transport's own error types stay in bots/
                if attempt == CONNECT_ATTEMPTS:
                    raise WorldError(
                        f"{name} could not join {self.host}:{self.port} "
                        f"after {attempt} attempts: {err}"
                    ) from err
                log.warning("%s: join attempt %d failed (%s); retrying", name, attempt, err)
                await asyncio.sleep(2.0 * attempt)
        raise AssertionError("unreachable")

    async def _equip(self, spec: ResolvedAgent) -> None:
        """Embedded world: place the agent and hand out its starting inventory (first login only)."""
        assert self.admin is not None
        try:
            inv = await self.admin.inventory(spec.name)
            returning = await self.admin.returning(spec.name)
        except Exception:
            log.warning("cannot read %s's inventory through the admin API", spec.name)
            return
        held = item_counts(inv)
        if returning:  # the world remembers this player: a restarted run continues as it was
            self._equipped(spec.name, held, {})
            return
        if spec.spawn_location is not None:
            p = spec.spawn_location
            try:
                await self.admin.teleport(spec.name, p.x, p.y, p.z)
            except Exception as err:  # a refused teleport must not stop the village
                log.warning("%s: teleport to its spawn location failed: %s", spec.name, err)
        commands = [f"/give {spec.name} {item} {n}" for item, n in spec.inventory.items() if n > 0]
        for command in commands:
            try:
                await self.admin.command(command)
            except Exception as err:  # a refused command must not stop the village
                log.warning("%s: %s failed: %s", spec.name, command.split()[0], err)
        self._equipped(spec.name, held, {k: n for k, n in spec.inventory.items() if n > 0})

    def _equipped(self, name: str, held: dict[str, int], kit: dict[str, int]) -> None:
        """``body_equipped``: what the server held for the body as it joined, and the kit given
        (none when the world remembered the player: a resumed run keeps its inventory)."""
        if self.events is not None:
            self.events.emit("body_equipped", name, held=held, kit=kit)


def item_counts(items: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        out[str(it["name"])] = out.get(str(it["name"]), 0) + int(it["count"])
    return out


@dataclass(frozen=True)
class ServerSpot:
    """Where one server is (or is to be started): the world's, or one shard's."""

    kind: str  # embedded | external
    host: str
    port: int
    admin_port: int | None
    layout: VillageLayout
    shard: str | None = None  # None: the only world
    #: an external server's admin API, when another process of this run started it (with its
    #: token: kept out of the repr)
    admin_url: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class WorldRun:
    """What every server of a run is opened with: the exit stack that stops them, the
    village's config, the run folder (worlds and logs) and the run's events."""

    stack: contextlib.AsyncExitStack
    cfg: VillageConfig
    run_dir: Path
    events: EventLog

    @property
    def body_key_file(self) -> Path:
        """The run's body key (made on first use): a worker of a run is handed the path of
        its coordinator's in the environment, a run that starts its servers keeps its own."""
        from bots.body_key import BODY_KEY_FILE_ENV, BODY_KEY_NAME, ensure_key_file

        handed = os.environ.get(BODY_KEY_FILE_ENV)
        return ensure_key_file(Path(handed) if handed else self.run_dir / BODY_KEY_NAME)

    def agent_names(self) -> tuple[str, ...]:
        """The run's agents' names: only their bodies may log in under them."""
        return tuple(a.name for a in resolve_agents(self.cfg))


async def open_server(run: WorldRun, spot: ServerSpot) -> WorldHandle:
    """Start (embedded) or check (external) one server; its handle has no transport yet.
    (On a cluster an embedded shard's server is an actor instead:
    :func:`agent_runtime.app.launchers.world_shards.open_shard_server`.)"""
    stack, cfg, run_dir, events = run.stack, run.cfg, run.run_dir, run.events
    admin_url = spot.admin_url
    w = cfg.world
    suffix = f"-{spot.shard}" if spot.shard else ""
    handle = WorldHandle(
        kind=spot.kind, host=spot.host, port=spot.port, version=w.version, events=events
    )
    if spot.kind == "embedded" or admin_url is not None:  # a server of this run
        handle.body_key_file = str(run.body_key_file)
    if spot.kind == "embedded":
        from bots.server_host import EmbeddedServer, EmbeddedServerError
        from bots.server_options import ServerOptions

        log_path = run_dir / "logs" / f"server{suffix}.log"
        options = ServerOptions(
            host=spot.host,
            port=spot.port or None,  # 0 = a free port
            admin_port=spot.admin_port,
            version=w.version,
            seed=w.seed if w.seed is not None else cfg.run.seed,
            layout=spot.layout,
            body_key_file=run.body_key_file,
            agent_names=run.agent_names(),
        )
        server = EmbeddedServer(run_dir / f"world{suffix}", options, log_path=log_path)
        try:
            await stack.enter_async_context(server)
        except (EmbeddedServerError, OSError, TimeoutError) as err:
            raise WorldError(
                f"the embedded Minecraft server{suffix.replace('-', ' ')} did not start on "
                f"{spot.host}:{spot.port or 'a free port'}: {err} (see {log_path})"
            ) from err
        handle.server = server
        _supervise_server(stack, server, events)
        handle.port = server.port
        handle.admin_url = server.admin_url
        handle.places = dict(server.places)
        from bots.admin import AdminClient

        handle.admin = await stack.enter_async_context(AdminClient(str(server.admin_url)))
        extra = {"shard": spot.shard} if spot.shard else {}
        events.emit(
            "world_started",
            kind="embedded",
            address=f"{spot.host}:{server.port}",
            admin_url=server.admin_address,  # never the token
            places={k: [p.x, p.y, p.z] for k, p in server.places.items()},
            **extra,
        )
        return handle
    # a shard another process runs (admin_url: ours) may be restarting: give it a while
    await _check_reachable(spot.host, spot.port, w.version, wait=60.0 if admin_url else 0.0)
    if admin_url is not None:
        from bots.admin import AdminClient

        handle.admin_url = admin_url
        handle.admin = await stack.enter_async_context(AdminClient(admin_url))
        handle.places = await _places(handle.admin)
    return handle


async def _places(admin: Any) -> dict[str, Any]:
    """The named places of an embedded world, read through its admin API."""
    from agent_runtime.config.layout import Place

    raw = await admin.places()
    items = raw.get("places", raw) if isinstance(raw, dict) else raw
    if isinstance(items, dict):
        items = [{"name": k, **v} if isinstance(v, dict) else v for k, v in items.items()]
    return {p["name"]: Place(**p) for p in items}


async def _check_reachable(
    host: str, port: int, version: str, within: float = 5.0, wait: float = 0.0
) -> None:
    """An external server must answer a server-list ping, with the protocol of the village's
    Minecraft version, before bodies try to join it; a refused connection is tried again for
    ``wait`` seconds (a shard of this run that is being restarted)."""
    from bots.status_ping import PROTOCOLS, status_ping

    deadline = time.monotonic() + wait
    try:
        while True:
            try:
                status = await status_ping(host, port, within=within)
                break
            except ConnectionRefusedError:
                if time.monotonic() >= deadline:
                    raise
                log.info("%s:%d refuses connections (restarting?); trying again", host, port)
                await asyncio.sleep(1.0)
    except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError) as err:
        reason = str(err) or type(err).__name__
        raise WorldError(f"cannot reach the Minecraft server at {host}:{port}: {reason}") from None
    except Exception as err:  # the ping's own protocol errors
        raise WorldError(f"{host}:{port} did not answer as a Minecraft server: {err}") from None
    log.info("external world %s:%d answers: %s", host, port, status.get("version"))
    raw = status.get("version")
    served: dict[str, Any] = raw if isinstance(raw, dict) else {}
    protocol, expected = served.get("protocol"), PROTOCOLS.get(version)
    if expected is not None and protocol != expected:
        name = str(served.get("name", "an unknown version"))[:40]
        raise WorldError(
            f"the Minecraft server at {host}:{port} runs {name} (protocol {protocol}); this "
            f"village's bodies speak Minecraft {version} (protocol {expected}): use a "
            f"{version} server or another world.version"
        )


def _supervise_server(stack: contextlib.AsyncExitStack, server: Any, events: EventLog) -> None:
    """Restart the embedded server whenever it dies, until the world closes."""

    def restarted(message: str) -> None:
        events.emit("service_restarted", service="minecraft", message=message)

    task = asyncio.create_task(server.supervise(restarted), name="world.supervise[minecraft]")
    stack.push_async_callback(cancel_and_wait, task)
