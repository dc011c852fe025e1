"""Workers and world shards as Ray actors (``piano run --workers N --cluster ray[...]``).

The only module of the runtime that imports Ray. Each worker is one actor (see
:mod:`.ray_actor`) created with ``max_restarts``: when its ``piano worker`` dies, or its
node goes away, Ray starts the actor again (on another node if need be) and the actor
starts the worker again; its agents resume from Redis. The pool notices the end of an
incarnation (``wait_exit`` answers, or fails because the actor is gone) and
:meth:`RayLauncher.restart` waits until the actor answers as a new incarnation.

Each embedded world shard is one actor too (:mod:`.server_actor`,
:meth:`RayLauncher.start_server`): its flying-squid server, restarted by Ray with the actor on
the same ports, world folder and admin token; :meth:`RayLauncher.restart` waits for its new
incarnation as for a worker's.

Actors are spread over the nodes (``scheduling_strategy="SPREAD"``), each worker reserving
``num_cpus`` and each shard ``server_cpus``: the shares of a CPU their measured cost needs
(:mod:`.actor_costs`), so that a small machine or a busy cluster shares its cores instead of
waiting for whole free ones. A request that no node can hold, or more than the cluster has
free, is a :class:`ServiceError` at once saying what it asked and what the cluster has
(:func:`room_for`). A worker whose agents all live on one shard is
started on that shard's node (:meth:`RayLauncher.prefer_node`, soft: elsewhere once the node
is gone). With no address, :class:`RayLauncher` starts a local Ray for the run
(``ray.init(num_cpus=<this machine's>)``) and shuts it down after.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

import ray
from ray.exceptions import RayActorError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from agent_runtime.app.launchers.handles import WorkerHandle, WorkerLaunch
from agent_runtime.app.launchers.ray_actor import Placement, WorkerActor
from agent_runtime.app.launchers.ray_settings import SYSTEM_CONFIG, dashboard_wanted
from agent_runtime.app.launchers.server_actor import ServerActor, ServerSettings
from agent_runtime.services import ServiceError

__all__ = ["RayLauncher", "RayServerHandle", "RayWorkerHandle"]

log = logging.getLogger(__name__)

#: how often Ray restarts one worker's actor before giving up (-1: forever)
MAX_RESTARTS = -1
#: a restart that takes longer than this is an error of the run
RESTART_LIMIT_S = 120.0
#: a worker's actor that is not running after this long (no node with a free CPU?) fails
PLACE_LIMIT_S = 120.0


def _nice() -> int:
    """This process's niceness: the workers' (the coordinator's and theirs alike)."""
    return os.getpriority(os.PRIO_PROCESS, 0)


class _OnRay:
    """An actor that asks Ray where it runs."""

    def place(self) -> Placement:
        ctx = ray.get_runtime_context()
        return Placement(
            node=ctx.get_node_id(),
            node_ip=ray.util.get_node_ip_address(),  # type: ignore[no-untyped-call]
            reconstructed=ctx.was_current_actor_reconstructed,
        )


class _RayWorkerActor(_OnRay, WorkerActor):
    """:class:`WorkerActor` that knows its node and whether Ray restarted it."""


_RemoteWorker: Any = ray.remote(_RayWorkerActor)


class _RayServerActor(_OnRay, ServerActor):
    """:class:`ServerActor` that knows its node, its address and whether Ray restarted it."""


_RemoteServer: Any = ray.remote(_RayServerActor)


class RayWorkerHandle:
    """One worker's (or world shard's) actor; ``info`` is what the current incarnation said
    about itself."""

    what = "worker"

    def __init__(self, k: int | str, actor: Any, info: dict[str, Any], stop_timeout: float) -> None:
        self.k = k
        self.actor = actor
        self.info = info
        self.stop_timeout = stop_timeout
        self.lost_at: float | None = None

    @property
    def pid(self) -> int | None:
        pid = self.info.get("pid")
        return int(pid) if pid is not None else None

    @property
    def actor_pid(self) -> int | None:
        pid = self.info.get("actor_pid")
        return int(pid) if pid is not None else None

    @property
    def node(self) -> str | None:
        node = self.info.get("node")
        return str(node) if node is not None else None

    async def wait(self) -> int | None:
        try:
            code: int | None = await self.actor.wait_exit.remote()
        except RayActorError as err:
            log.warning("%s %s's actor was lost: %s", self.what, self.k, type(err).__name__)
            code = None
        self.lost_at = time.monotonic()
        return code

    async def stop(self) -> int | None:
        code: int | None = None
        try:
            async with asyncio.timeout(self.stop_timeout + 10.0):
                code = await self.actor.stop.remote()
        except (RayActorError, TimeoutError) as err:
            log.warning("%s %s did not stop through its actor: %s", self.what, self.k, err)
        ray.kill(self.actor, no_restart=True)
        return code


class RayServerHandle(RayWorkerHandle):
    """One world shard's actor (``k`` is the shard's name)."""

    what = "shard"

    @property
    def address(self) -> str:
        return f"{self.info['host']}:{self.info['port']}"


class RayLauncher:
    """Each worker a Ray actor that Ray restarts; see the module's docstring."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: float = 1.0,
        server_cpus: float = 1.0,
        max_restarts: int = MAX_RESTARTS,
    ) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.server_cpus = server_cpus
        self.max_restarts = max_restarts
        self._owns_ray = False
        self._depth = 0  # entered by the world's shards and by the worker pool alike
        self._near: dict[int, str] = {}  # worker -> the node it should start on

    async def __aenter__(self) -> RayLauncher:
        self._depth += 1
        if self._depth > 1 or ray.is_initialized():
            return self
        kwargs: dict[str, Any] = {"log_to_driver": False, "include_dashboard": dashboard_wanted()}
        if self.address is None:
            kwargs["num_cpus"] = os.cpu_count() or 1
            # only what a run needs beside its actors; among them, workers at niceness 0 (Ray
            # runs them at 15: a village's workers and their children would lose every
            # contest for a core to Redis, the broker and anything else): ray_settings.py
            kwargs["_system_config"] = dict(SYSTEM_CONFIG)
            self._owns_ray = True
        else:
            kwargs = {"address": self.address, "log_to_driver": False}
        await asyncio.to_thread(ray.init, **kwargs)
        log.info("ray: %s", "local cluster started" if self._owns_ray else self.address)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._owns_ray and self._depth == 0:
            await asyncio.to_thread(ray.shutdown)
            self._owns_ray = False

    async def start(self, worker: WorkerLaunch) -> RayWorkerHandle:
        k = worker.k
        room_for(f"worker {k}", self.num_cpus, "a worker actor, its agents and their bodies")
        actor = _RemoteWorker.options(
            num_cpus=self.num_cpus,
            max_restarts=self.max_restarts,
            max_concurrency=4,  # wait_exit blocks one thread; info and stop use others
            scheduling_strategy=self._where(k),
        ).remote(
            k,
            list(worker.argv),
            dict(worker.env),
            str(worker.log_path),
            worker.stop_timeout,
            os.getcwd(),
            _nice(),
        )
        info = await _placed(
            actor,
            f"worker {k}",
            f"each worker reserves {self.num_cpus:g} CPU; the cluster has {_cluster_cpus()}",
        )
        log.info("worker %d: actor on node %s, pid %s", k, info["node"], info["pid"])
        return RayWorkerHandle(k, actor, info, worker.stop_timeout)

    def prefer_node(self, k: int, node: str | None) -> None:
        """Start worker ``k`` on ``node`` while that node lives (its world shard's, so that its
        bodies' traffic stays on the node); anywhere else when it is gone or full."""
        if node is not None:
            self._near[k] = node

    def _where(self, k: int) -> Any:
        node = self._near.get(k)
        if node is None:
            return "SPREAD"
        return NodeAffinitySchedulingStrategy(node_id=node, soft=True)

    @property
    def local(self) -> bool:
        """A Ray started for this run on this machine (not an existing cluster)."""
        return self.address is None

    async def start_server(self, settings: ServerSettings) -> RayServerHandle:
        """One world shard's server as an actor; returns once it answers on its port."""
        what = f"shard {settings.shard}'s server"
        room_for(what, self.server_cpus, "a shard actor and its Minecraft server")
        actor = _RemoteServer.options(
            num_cpus=self.server_cpus,
            max_restarts=self.max_restarts,
            max_concurrency=4,  # wait_exit blocks one thread; info and stop use others
            scheduling_strategy="SPREAD",
        ).remote(settings)
        info = await _placed(
            actor, what, f"it reserves {self.server_cpus:g} CPU; the cluster has {_cluster_cpus()}"
        )
        log.info("shard %s: actor on node %s, port %s", settings.shard, info["node"], info["port"])
        return RayServerHandle(settings.shard, actor, info, 20.0)

    async def restart(self, handle: WorkerHandle, backoff: float) -> RayWorkerHandle:
        """Wait until Ray has the actor running again (a new incarnation answers)."""
        assert isinstance(handle, RayWorkerHandle)
        old = handle.info
        async with asyncio.timeout(RESTART_LIMIT_S):
            while True:
                try:
                    async with asyncio.timeout(5.0):
                        info: dict[str, Any] = await handle.actor.info.remote()
                except (RayActorError, TimeoutError):
                    await asyncio.sleep(0.2)
                    continue
                if info["started_at"] != old["started_at"] or info["actor_pid"] != old["actor_pid"]:
                    break
                await asyncio.sleep(0.2)  # the old incarnation still ending
        handle.info = info
        log.info(
            "%s %s: actor back on node %s, pid %s", handle.what, handle.k, info["node"], info["pid"]
        )
        return handle


def _cpus() -> tuple[list[float], float]:
    """The CPUs of each live node of the connected cluster, and how many are free now."""
    nodes = [
        float(n.get("Resources", {}).get("CPU", 0.0))
        for n in ray.nodes()  # type: ignore[no-untyped-call]
        if n.get("Alive")
    ]
    free = float(ray.available_resources().get("CPU", 0.0))  # type: ignore[no-untyped-call]
    return nodes, free


def _cluster_cpus() -> str:
    nodes, free = _cpus()
    largest = max(nodes, default=0.0)
    return f"{sum(nodes):g} CPU on {len(nodes)} node(s), {largest:g} on the largest, {free:g} free"


def room_for(what: str, cpus: float, asks_for: str) -> None:
    """Raise :class:`ServiceError` at once when the cluster cannot place an actor that asks
    ``cpus`` CPU (``asks_for``: what the request is for): no live node has that many, or
    fewer are free (other actors hold them) - instead of Ray waiting for room that a fixed
    cluster never makes."""
    nodes, free = _cpus()
    if cpus <= max(nodes, default=0.0) and cpus <= free + 1e-9:
        return
    raise ServiceError(
        f"Ray cannot place {what}: it asks {cpus:g} CPU ({asks_for}, as measured: "
        f"agent_runtime/app/launchers/actor_costs.py); the cluster has {_cluster_cpus()}. "
        "Give the cluster more CPUs (or nodes), or run fewer agents per worker (--workers)"
    )


async def _placed(actor: Any, what: str, reserves: str) -> dict[str, Any]:
    """The first answer of a new ``actor`` (its node, pid, ...): a ServiceError naming
    ``what`` when Ray cannot place it within PLACE_LIMIT_S (it is killed) or it fails."""
    try:
        async with asyncio.timeout(PLACE_LIMIT_S):
            info: dict[str, Any] = await actor.info.remote()
    except TimeoutError:
        ray.kill(actor, no_restart=True)
        raise ServiceError(
            f"Ray did not start {what} within {PLACE_LIMIT_S:.0f} s ({reserves})"
        ) from None
    except RayActorError as err:
        raise ServiceError(f"{what}'s actor failed to start: {err}") from None
    return info
