"""World shards: one village over several Minecraft servers.

``open_shards`` opens every shard of ``world.shards`` (agent_runtime/config/shards.py):
an embedded shard is its own flying-squid server on a free loopback port with its own admin
API token, an external shard is checked with a status ping. The returned handle routes
bodies: :class:`ShardRouter` assigns each agent to one shard (the one whose region holds its
spawn location, else by its index, within each shard's ``max_bots``), and every agent's body
is a :class:`ShardedBody`, which the agent uses like any body.

A ``ShardedBody`` moves its mineflayer body to another server when

- a ``go_to`` targets a point of another shard's region: it walks to its region's edge,
  leaves, joins the other server at the matching point across the border (admin API teleport;
  coordinates are global, the same on every server) and walks on from there;
- after any skill (``explore``, ``follow``, ...) or an observation, its position lies outside
  its region: it moves to the shard that holds that position.

Each move emits a ``shard_transfer`` event (agent, from, to, position, seconds). The agent's
state in Redis (identity, memory, social state) is not touched: the agent object, its modules
and its state keys stay the same; only the Minecraft connection changes. Items are carried
(best effort) by reading the inventory on the old server and giving the missing counts on
the new one; the old server keeps its copy of the player file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_runtime.app.launchers.world_shards import open_shard_server
from agent_runtime.app.world_setup import ServerSpot, WorldError, WorldHandle, WorldRun
from agent_runtime.clock import wall_time
from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.loader import ResolvedAgent, with_overrides
from agent_runtime.config.models import VillageConfig
from agent_runtime.config.shards import ShardSettings
from agent_runtime.interfaces import Body, BotTransport
from agent_runtime.run.events import EventLog
from agent_runtime.world import BodyEvent, Observation, SkillCall, SkillOutcome

if TYPE_CHECKING:
    from agent_runtime.app.launchers import ServerLauncher

log = logging.getLogger(__name__)

#: blocks inside a region's edge where a body stops before leaving / lands after arriving
EDGE_MARGIN = 1.5


@dataclass
class Shard:
    settings: ShardSettings
    world: WorldHandle
    bots: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.settings.name

    def full(self) -> bool:
        return len(self.bots) >= self.settings.max_bots


def shard_spot(w: Any, s: ShardSettings) -> ServerSpot:
    """Where shard ``s`` runs; unset fields come from the ``world`` section ``w``."""
    kind = s.kind or w.kind
    layout = s.layout
    if layout is None:
        cx, cz = s.region.centre()
        layout = w.layout.model_copy(update={"centre_x": cx, "centre_z": cz})
    port = s.port if s.port is not None else (0 if kind == "embedded" else w.port)
    return ServerSpot(
        kind=kind,
        host=s.host or w.host,
        port=port,
        admin_port=s.admin_port,
        layout=layout,
        shard=s.name,
        admin_url=s.admin_url,
    )


async def open_shards(run: WorldRun, servers: ServerLauncher | None = None) -> WorldHandle:
    """Open every shard (servers start one after the other) and return the routing handle.
    ``servers`` (``--cluster``): each embedded shard's server is an actor of the cluster."""
    cfg = run.cfg
    shards: list[Shard] = []
    for s in cfg.world.shards:
        world = await open_shard_server(run, shard_spot(cfg.world, s), servers)
        shards.append(Shard(s, world))
    first = shards[0].world
    handle = WorldHandle(
        kind=cfg.world.kind, host=first.host, port=first.port, version=cfg.world.version
    )
    handle.admin, handle.admin_url = first.admin, first.admin_url
    for shard in shards:  # a name every shard uses gets the shard's name in front
        for name, place in shard.world.places.items():
            key = name if len(shards) == 1 else f"{shard.name}_{name}"
            handle.places[key] = place
    handle.router = ShardRouter(shards, run.events)
    return handle


#: Workers (``piano run --workers N``) learn where the coordinator's shards run from this
#: variable: a JSON list of ``{name, host, port, admin_url}`` (admin URLs carry tokens, so
#: never on a command line).
SHARDS_ENV = "PIANO_SHARDS"


def shard_addresses(handle: WorldHandle) -> str | None:
    """The running shards of ``handle`` as :data:`SHARDS_ENV` text (None: not sharded)."""
    if handle.router is None:
        return None
    return json.dumps(
        [
            {
                "name": s.name,
                "host": s.world.host,
                "port": s.world.port,
                "admin_url": s.world.admin_url,
            }
            for s in handle.router.shards
        ]
    )


def attach_shards(cfg: VillageConfig, text: str, file: Path | str) -> VillageConfig:
    """A worker's config: every shard becomes the ``external`` server another process runs
    (from :func:`shard_addresses`); regions, budgets and layouts stay as configured."""
    running = {a["name"]: a for a in json.loads(text)}
    shards = []
    for s in cfg.world.shards:
        at = running.get(s.name)
        if at is None:
            problem = f"shard {s.name!r} is not among the running shards {sorted(running)}"
            raise ConfigError(file, [FieldProblem("world.shards", problem)])
        shards.append(
            s.model_dump(mode="json")
            | {
                "kind": "external",
                "host": at["host"],
                "port": at["port"],
                "admin_url": at["admin_url"],
            }
        )
    return with_overrides(cfg, {"world.kind": "external", "world.shards": shards}, file)


class ShardRouter:
    """Which shard holds a point, which shard an agent starts on, and the bot budgets."""

    def __init__(self, shards: list[Shard], events: EventLog) -> None:
        self.shards = shards
        self.events = events
        self.transfers = 0
        self.failed_transfers = 0

    def use_transport(self, transport: BotTransport) -> None:
        for shard in self.shards:
            shard.world.transport = transport

    def holding(self, x: float, z: float) -> Shard:
        """The shard whose region holds (x, z), else the nearest one."""
        for shard in self.shards:
            if shard.settings.region.contains(x, z):
                return shard
        return min(self.shards, key=lambda s: s.settings.region.distance(x, z))

    def first_shard(self, spec: ResolvedAgent) -> Shard:
        """Where an agent starts: its spawn location's shard, else by its index; a full
        shard passes it on to the next one with room."""
        n = len(self.shards)
        if spec.spawn_location is not None:
            start = self.shards.index(self.holding(spec.spawn_location.x, spec.spawn_location.z))
        else:
            start = spec.index % n
        for i in range(n):
            shard = self.shards[(start + i) % n]
            if not shard.full():
                return shard
        raise WorldError(f"{spec.name}: every shard is full (max_bots)")

    async def connect(self, spec: ResolvedAgent) -> ShardedBody:
        shard = self.first_shard(spec)
        shard.bots.add(spec.name)
        try:
            inner = await shard.world.connect(spec)
        except BaseException:
            shard.bots.discard(spec.name)
            raise
        return ShardedBody(spec.name, self, shard, inner)

    def counts(self) -> dict[str, int]:
        return {s.name: len(s.bots) for s in self.shards}


def _xz(call: SkillCall) -> tuple[float, float] | None:
    if call.skill != "go_to" or call.args.get("player"):
        return None
    x, z = call.args.get("x"), call.args.get("z")
    if not isinstance(x, int | float) or not isinstance(z, int | float):
        return None
    return float(x), float(z)


class ShardedBody(Body):
    """A body that lives on one shard at a time and moves between them (module docstring)."""

    def __init__(self, name: str, router: ShardRouter, shard: Shard, inner: Body) -> None:
        self.name = name
        self.router = router
        self.shard = shard
        self.inner = inner
        self.transfers = 0
        self._lock = asyncio.Lock()  # held while the body changes servers
        self._running = 0  # skills in progress (no move under a running skill)
        self._queue: asyncio.Queue[BodyEvent | None] = asyncio.Queue(maxsize=1024)
        self._pump: asyncio.Task[None] | None = None
        self._closed = False
        self._start_pump()

    def __getattr__(self, attr: str) -> Any:  # kicks, deaths, connected, ... of the inner body
        if attr == "inner":
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    # --- events from whichever inner body is current --------------------------------
    def _start_pump(self) -> None:
        inner = self.inner

        async def pump() -> None:
            async for event in inner.events():
                with contextlib.suppress(asyncio.QueueFull):
                    self._queue.put_nowait(event)

        self._pump = asyncio.get_running_loop().create_task(pump(), name=f"shard.pump[{self.name}]")

    async def _stop_pump(self) -> None:
        task, self._pump = self._pump, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def events(self) -> AsyncIterator[BodyEvent]:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            yield item

    # --- Body -------------------------------------------------------------------------
    async def open_viewer(self) -> int:
        """The 3D view of the body on its current server (a new one after a move)."""
        async with self._lock:
            inner = self.inner
        return await inner.open_viewer()

    async def observe(self) -> Observation:
        async with self._lock:
            inner = self.inner
        try:
            obs = await inner.observe()
        except Exception:
            if inner is self.inner:
                raise
            return await self.inner.observe()  # it moved meanwhile: look from the new server
        pos = obs.position
        if pos is None or self._running or self._inside(pos.x, pos.z):
            return obs
        dest = self.router.holding(pos.x, pos.z)
        if dest is self.shard:  # outside every region, and this one is the nearest: stay
            return obs
        if await self.transfer(dest, pos.x, pos.y, pos.z, idle_only=True):
            obs = await self.inner.observe()
        return obs

    async def cancel_skill(self) -> None:
        await self.inner.cancel_skill()

    async def run_skill(self, call: SkillCall) -> SkillOutcome:
        async with self._lock:
            self._running += 1
        try:
            outcome = await self._run(call)
        finally:
            self._running -= 1
        pos = outcome.position
        if pos is not None and not self._inside(pos.x, pos.z):
            await self.transfer(self.router.holding(pos.x, pos.z), pos.x, pos.y, pos.z)
        return outcome

    async def _run(self, call: SkillCall) -> SkillOutcome:
        target = _xz(call)
        if target is None or self._inside(*target):
            return await self.inner.run_skill(call)
        dest = self.router.holding(*target)
        if dest is self.shard:  # outside every region: stay
            return await self.inner.run_skill(call)
        region = self.shard.settings.region
        bx, bz = region.clamp(*target, margin=EDGE_MARGIN)
        leg_args = {k: v for k, v in call.args.items() if k != "y"} | {"x": bx, "z": bz}
        leg = await self.inner.run_skill(call.model_copy(update={"args": leg_args}))
        if not leg.success:
            return leg.model_copy(
                update={
                    "reason": f"on the way to the edge of {self.shard.name}: {leg.reason}"[:300]
                }
            )
        y = leg.position.y if leg.position is not None else 80.0
        ax, az = dest.settings.region.clamp(bx, bz, margin=EDGE_MARGIN)
        if not await self.transfer(dest, ax, y, az):
            return SkillOutcome(
                skill=call.skill,
                success=False,
                reason=f"could not move to the world {dest.name} that holds the destination",
                failure="target_out_of_reach",
                position=leg.position,
                started_at=leg.started_at,
                ended_at=wall_time(),
            )
        outcome = await self.inner.run_skill(call)
        return outcome.model_copy(
            update={"started_at": leg.started_at, "detail": {**outcome.detail, "shard": dest.name}}
        )

    def _inside(self, x: float, z: float) -> bool:
        return self.shard.settings.region.contains(x, z)

    # --- moving between servers -------------------------------------------------------
    async def transfer(
        self, dest: Shard, x: float, y: float, z: float, *, idle_only: bool = False
    ) -> bool:
        """Leave this server and join ``dest`` at (x, y, z); False (and still here) if the
        other server is full or refuses the body, or (``idle_only``) a skill is running.
        A cancelled caller does not stop a move half-way (the move is shielded)."""
        return await asyncio.shield(self._transfer(dest, x, y, z, idle_only))

    async def _transfer(self, dest: Shard, x: float, y: float, z: float, idle_only: bool) -> bool:
        async with self._lock:
            src = self.shard
            if dest is src or self._closed or (idle_only and self._running):
                return dest is src
            if dest.full():
                log.warning("%s: cannot move to %s: it is full", self.name, dest.name)
                self.router.failed_transfers += 1
                return False
            t0 = time.monotonic()
            items = await _inventory(src.world, self.name)
            dest.bots.add(self.name)
            await self._stop_pump()
            await _close(self.inner)
            try:
                new = await dest.world.join(self.name, None)
            except WorldError as err:
                log.warning(
                    "%s: joining %s failed (%s); back to %s", self.name, dest.name, err, src.name
                )
                dest.bots.discard(self.name)
                self.router.failed_transfers += 1
                self.inner = await src.world.join(self.name, None)
                self._start_pump()
                return False
            src.bots.discard(self.name)
            self.inner, self.shard = new, dest
            self._start_pump()
            await _arrive(dest.world, self.name, (x, y, z), items)
            self.transfers += 1
            self.router.transfers += 1
            seconds = round(time.monotonic() - t0, 2)
            self.router.events.emit(
                "shard_transfer",
                self.name,
                **{"from": src.name, "to": dest.name},
                position=[round(x, 1), round(y, 1), round(z, 1)],
                seconds=seconds,
            )
            log.info("%s moved from %s to %s in %.1f s", self.name, src.name, dest.name, seconds)
            return True

    async def close(self) -> None:
        self._closed = True
        await self._stop_pump()
        await _close(self.inner)
        self.shard.bots.discard(self.name)
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)


async def _close(body: Body) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        await close()


async def _inventory(world: WorldHandle, name: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    if world.admin is None:
        return counts
    try:
        for item in await world.admin.inventory(name):
            counts[str(item["name"])] += int(item["count"])
    except Exception as err:  # the move goes on without the items
        log.warning("%s: cannot read its inventory before moving: %s", name, err)
    return counts


async def _arrive(
    world: WorldHandle, name: str, at: tuple[float, float, float], items: Counter[str]
) -> None:
    """Place the arriving body and give it the items it holds elsewhere and lacks here."""
    if world.admin is None:
        return
    try:
        await world.admin.teleport(name, *at)
        missing = items - await _inventory(world, name)
        for item, n in missing.items():
            await world.admin.command(f"/give {name} {item} {n}")
    except Exception as err:  # a refused teleport or give must not stop the village
        log.warning("%s: arrival on the new world incomplete: %s", name, err)
