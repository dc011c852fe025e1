"""A village whose agents live in worker processes: the coordinating process opens the shared
parts, workers host the agents (see :mod:`agent_runtime.app.workers`).

:func:`coordinate` is the coordinator as a context manager: a
:class:`~agent_runtime.app.village.Village` that hosts no agents starts (or connects to)
Redis, the broker and the world (every shard of ``world.shards``), then a
:class:`WorkerPool` of ``piano worker`` children pointed at them, collects the workers'
``run/status`` and ``run/progress`` messages and, with ``follow_events``, copies the workers'
event records into the run's own ``events.jsonl`` as they are written
(:class:`~agent_runtime.app.workers.EventFollower`). At the end it writes the run's
``metrics.json`` from the workers' own (their folders are ``<run>/workers/<K>``).
``piano run --workers N`` (:func:`agent_runtime.app.cli.run_workers.run_workers`) and ``piano experiment --workers N``
(``experiments.common.run_village``) both use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_runtime.app.launchers import ClusterSpec, open_launcher
from agent_runtime.app.workers import EventFollower, WorkerPool, WorkerSpec
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Progress
from agent_runtime.clock import wall_time
from agent_runtime.config.loader import ResolvedAgent, resolve_agents
from agent_runtime.config.models import VillageConfig
from agent_runtime.services import ServiceError

if TYPE_CHECKING:
    from agent_runtime.app.village import Village, VillageOptions
    from agent_runtime.app.world_setup import WorldHandle

__all__ = ["Coordination", "WorkersNotReady", "coordinate", "village_agents"]

#: a worker that exits this many times before its agents run does not come up by itself
FAILED_STARTS = 3


class WorkersNotReady(ServiceError):
    """The workers did not bring every agent up (in time, or at all); the message says why."""


def village_agents(
    cfg: VillageConfig, world: WorldHandle, limit: int | None
) -> list[ResolvedAgent]:
    """Every agent of the village, as each worker resolves it (``Village._open``: the same
    file, seed, places and limit; the random stream is the village's first draw), so that
    the coordinator knows the agents it does not host. :meth:`Coordination.ready` checks the
    names against the ones the workers registered in Redis."""
    rng = random.Random(random.Random(cfg.run.seed).getrandbits(64))
    return resolve_agents(cfg, place_memories=world.place_memories(), limit=limit, rng=rng)


def _absolute(path: Path) -> Path:
    """``path`` from the filesystem's root (no I/O: the current folder joined in front)."""
    return Path(os.path.abspath(path))


def _aggregate(latest: dict[str, dict[str, Any]], started: float) -> dict[str, Any]:
    keys = ("agents", "decisions", "speech", "skills", "errors", "unresponsive")
    out: dict[str, Any] = {k: sum(int(p.get(k, 0)) for p in latest.values()) for k in keys}
    out["elapsed_s"] = round(wall_time() - started, 1)
    out["workers_reporting"] = len(latest)
    return out


@dataclass
class Coordination:
    """What :func:`coordinate` yields: the coordinating village (no agents of its own), its
    pool and what the workers reported."""

    village: Village
    workers: int
    pool: WorkerPool | None = None
    follower: EventFollower | None = None
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)  # progress per worker
    reported_at: dict[str, float] = field(default_factory=dict)  # monotonic, per worker
    statuses: list[dict[str, Any]] = field(default_factory=list)  # run/status messages
    metrics: dict[str, Any] = field(default_factory=dict)  # the run's, after the exit
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def aggregate(self) -> dict[str, Any]:
        """The village-wide figures of the workers' latest progress reports."""
        return _aggregate(self.latest, self.village.started_at)

    def _report(self, payload: dict[str, Any]) -> None:
        shard = payload.get("shard") or ["?"]
        self.latest[str(shard[0])] = payload
        self.reported_at[str(shard[0])] = time.monotonic()
        self._arrived.set()

    def _status(self, payload: dict[str, Any]) -> None:
        if payload.get("status") == "running":
            self.statuses.append(payload)
            self._arrived.set()

    def _up(self, agents: int) -> bool:
        """Every worker said it runs its agents (run/status once, or run/progress since)."""
        by_status = sum(int(s.get("agents", 0)) for s in self.statuses)
        if len(self.statuses) >= self.workers and by_status == agents:
            return True
        by_report = sum(int(p.get("agents", 0)) for p in self.latest.values())
        return len(self.latest) >= self.workers and by_report == agents

    async def ready(
        self, agents: list[ResolvedAgent], within: float, stop: asyncio.Event | None = None
    ) -> bool:
        """Wait until the workers run all ``agents`` (False: ``stop`` was set first).

        Raises :class:`WorkersNotReady` after ``within`` seconds, when a worker keeps
        exiting before its agents run, or when the workers registered other agents in Redis
        than ``agents``."""
        assert self.pool is not None
        try:
            async with asyncio.timeout(within):
                while not self._up(len(agents)):
                    if stop is not None and stop.is_set():
                        return False
                    self._check_starts()
                    self._arrived.clear()
                    with contextlib.suppress(TimeoutError):  # re-check exits every second
                        async with asyncio.timeout(1.0):
                            await self._arrived.wait()
        except TimeoutError:
            raise WorkersNotReady(
                f"the workers did not run all {len(agents)} agents within {within:.0f} s "
                f"(reports: {self.aggregate()}; see {self.pool.spec.folder(0).parent}/*/worker.log)"
            ) from None
        await self._check_names(agents)
        return True

    def _check_starts(self) -> None:
        assert self.pool is not None
        for w in self.pool.workers:
            if len(w.exits) >= FAILED_STARTS:
                log_path = self.pool.spec.folder(w.k) / "worker.log"
                tail = log_path.read_text(errors="replace")[-600:] if log_path.exists() else ""
                raise WorkersNotReady(
                    f"worker {w.k} exited {len(w.exits)} times before its agents ran "
                    f"(exit codes {w.exits}); {log_path} ends with:\n{tail}"
                )

    async def _check_names(self, agents: list[ResolvedAgent]) -> None:
        from agent_runtime.state import keys

        store = self.village.store
        assert store is not None
        raw = await store.redis.smembers(keys.agents(self.village.run_id))
        hosted = {m.decode() if isinstance(m, bytes) else str(m) for m in raw}
        expected = {a.name for a in agents}
        if hosted != expected:
            raise WorkersNotReady(
                f"the workers host {sorted(hosted - expected)} not expected and miss "
                f"{sorted(expected - hosted)}: the coordinator resolved other agents"
            )


def _bodies_near_their_shard(launcher: Any, world: WorldHandle, workers: int) -> None:
    """On a cluster whose shards are actors: worker ``k`` hosts the agents of index ``k`` mod
    ``workers`` and shard ``j`` those of index ``j`` mod ``shards`` (agents without a spawn
    location), so when the shards divide the workers each worker's bodies all live on shard
    ``k`` mod ``shards``: start the worker on that shard's node."""
    prefer = getattr(launcher, "prefer_node", None)
    router = world.router
    if prefer is None or router is None or workers % len(router.shards):
        return
    for k in range(workers):
        server = router.shards[k % len(router.shards)].world.server
        prefer(k, getattr(server, "node", None))


def _requests(cfg: VillageConfig, workers: int, limit: int | None) -> dict[str, float]:
    """What each worker and shard actor asks the cluster for: its measured cost's share."""
    from agent_runtime.app.launchers.actor_costs import village_requests

    count = len(cfg.agents) + sum(t.count for t in cfg.agent_templates)
    count = count if limit is None else min(count, limit)
    shards = max(1, len(cfg.world.shards))
    worker, server = village_requests(count, workers, shards, embodied=cfg.world.kind != "none")
    return {"num_cpus": worker, "server_cpus": server}


@contextlib.asynccontextmanager
async def coordinate(
    cfg: VillageConfig,
    options: VillageOptions,
    *,
    workers: int,
    config: Path,
    agents: int | None = None,
    llm: str | None = None,
    follow_events: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    cluster: ClusterSpec | None = None,
    measure_after: float | None = None,
) -> AsyncIterator[Coordination]:
    """Open the coordinating village of ``cfg`` and ``workers`` workers that load ``config``
    (the same village: file, seed, ``agents`` limit and ``llm`` override as given to
    ``piano worker``); yield while they run; then stop them and write ``metrics.json``.

    ``progress`` gets the coordinator's progress record with the workers' figures (agents,
    unresponsive, ...) in place of its own. ``follow_events``: the run's ``events.jsonl``
    gets every worker's records as they come (else they are concatenated into
    ``events.workers.jsonl`` at the end, as ``piano run --workers`` does). ``cluster``: the
    workers run as actors of that cluster (``--cluster``), else as child processes; either
    way a worker that runs again is a ``worker_restarted`` event with the seconds it took. On
    a cluster each embedded world shard's server is an actor too (restarted by Ray on the same
    ports: ``service_restarted`` with ``shard``; agent_runtime/app/launchers/world_shards.py).
    ``measure_after``: benchmarks; each worker forgets its lags of the first seconds after
    its agents run (``piano worker --measure-after``)."""
    from agent_runtime.app.shards import shard_addresses
    from agent_runtime.app.village import Village
    from modules.memory.encoder import HashingEncoder

    launcher = open_launcher(cluster, **_requests(cfg, workers, agents) if cluster else {})
    # the coordinator hosts no agents: nothing to embed, so not the MiniLM weights either;
    # on a cluster its embedded world shards are actors of the workers' launcher
    opts = dataclasses.replace(
        options,
        host_agents=False,
        embedder=options.embedder or HashingEncoder(),
        server_launcher=launcher if cluster is not None else None,
    )
    run_dir = opts.run_dir
    async with Village(cfg, opts) as village:
        assert village.bus is not None and village.world is not None
        if village.redis_url is None or village.mqtt_url is None:
            raise RuntimeError("the coordinator needs Redis and broker URLs to hand to workers")
        coord = Coordination(village, workers)
        reports = village.bus.subscribe(topics.run(village.run_id, "progress"), maxsize=1024)
        statuses = village.bus.subscribe(topics.run(village.run_id, "status"), maxsize=1024)

        def drain() -> None:
            while (msg := reports.get_nowait()) is not None:
                if isinstance(msg.payload, Progress):
                    coord._report(msg.payload.figures())
            while (msg := statuses.get_nowait()) is not None:
                coord._status(msg.payload.model_dump(mode="json"))

        reports.on_put = statuses.on_put = drain
        if progress is not None:
            village.options.progress = lambda info: progress({**info, **coord.aggregate()})
        spec = WorkerSpec(  # absolute paths: an actor's process starts in another folder
            config=_absolute(config),
            run_id=village.run_id,
            run_dir=_absolute(run_dir),
            count=workers,
            redis_url=village.redis_url,
            mqtt_url=village.mqtt_url,
            world=village.world.join_address or "none",
            admin_url=village.world.admin_url,
            shards=shard_addresses(village.world),
            agents=agents,
            llm=llm,
            measure_after=measure_after,
            # the Redis and broker passwords when they listen beyond loopback (by environment)
            secrets=village.options.credentials.env() if village.options.credentials else {},
        )
        folders = [spec.folder(k) for k in range(workers)]
        async with contextlib.AsyncExitStack() as stack:
            if follow_events:  # left after the pool: it reads what the workers wrote last
                coord.follower = await stack.enter_async_context(
                    EventFollower(folders, village.events)
                )

            def restarted(k: int, seconds: float, code: int | None, node: str | None) -> None:
                # seconds: from its end being noticed to it answering again; silent_s: since
                # its last progress report (the outage is at most that, give or take a report)
                last = coord.reported_at.get(str(k))
                silent = round(time.monotonic() - last, 3) if last is not None else None
                village.events.emit(
                    "worker_restarted", worker=k, seconds=seconds, silent_s=silent,
                    exit_code=code, node=node,
                )  # fmt: skip

            _bodies_near_their_shard(launcher, village.world, workers)
            coord.pool = await stack.enter_async_context(
                WorkerPool(spec, launcher=launcher, on_restart=restarted)
            )
            try:
                yield coord
            finally:
                reports.close()
                statuses.close()
        pool = coord.pool
        merged = pool.metrics() if follow_events else pool.merge_into(run_dir)
        merged["coordinator"] = {
            "stop_reason": village.stop_reason or "exit",
            "wall_s": round(wall_time() - village.started_at, 1),
            "events_copied": coord.follower.copied if coord.follower is not None else None,
        }
        coord.metrics = merged
    merged["run_id"] = village.run_id  # after the village wrote its own metrics.json
    (run_dir / "metrics.json").write_text(json.dumps(merged, indent=2, default=str))
