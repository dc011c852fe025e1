"""A village spread over worker processes that share Redis and the MQTT broker.

``piano worker CONFIG --shard K/N --redis URL --mqtt URL`` runs the agents of shard ``K``
(every agent whose index in the resolved list is ``K`` modulo ``N``: every worker resolves
the same list from the same file and seed, so the shards are disjoint and cover the
village) in one process with its own event loop. It talks to the rest of the village only
through Redis (Agent State, memory streams) and the broker (the broadcast), so the same
command runs on another machine against an external Redis and broker.

``piano run --workers N`` is the single-machine form: the *coordinator*
(:mod:`agent_runtime.app.coordinator`: a Village that hosts no agents, plus this
module's :class:`WorkerPool`) opens the shared parts itself (embedded Redis, broker and
world), then runs N ``piano worker`` children and supervises them: a worker that exits
before the run ends is started again with capped backoff, and its agents resume from
Redis. Each worker writes its own run folder ``<run>/workers/<K>``; at the end the
coordinator merges their ``metrics.json`` into the run's and concatenates their
``events.jsonl`` (or, with :class:`EventFollower`, copies every worker's records into the
run's own ``events.jsonl`` while the run goes on, so the run's log and its in-process
listeners see the whole village).

Workers report progress on ``piano/{run}/run/progress`` (see :mod:`agent_runtime.bus.topics`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_runtime.app.launchers.handles import WorkerLaunch
from agent_runtime.checks import require_positive
from agent_runtime.tasks import cancel_and_wait
from bots.body_key import BODY_KEY_FILE_ENV, BODY_KEY_NAME

if TYPE_CHECKING:
    from agent_runtime.app.launchers import Launcher, WorkerHandle
    from agent_runtime.run.events import EventLog

__all__ = [
    "ADMIN_URL_ENV",
    "AGENTS_PER_WORKER",
    "WORKERS_HELP",
    "EventFollower",
    "WorkerPool",
    "WorkerSpec",
    "in_shard",
    "merge_metrics",
    "parse_shard",
    "worker_count",
]

#: The embedded server's admin API (with its token) reaches workers in this variable,
#: never on their command line.
ADMIN_URL_ENV = "PIANO_ADMIN_URL"

log = logging.getLogger(__name__)


#: ``--workers auto`` gives no worker fewer agents than this (a small village stays in one
#: process: a worker costs a process, a broker connection and a merge at the end)
AGENTS_PER_WORKER = 100

WORKERS_HELP = (
    "worker processes sharing Redis and the broker: a number, or auto (the default: one per "
    f"core, with at least {AGENTS_PER_WORKER} agents each, so a small village runs in one "
    "process; 1 = all agents in this process)"
)


def worker_count(value: str, agents: int, cores: int | None = None) -> int:
    """``--workers``: a positive number, or ``auto`` (one per core, at least
    :data:`AGENTS_PER_WORKER` agents each); ``ValueError`` otherwise."""
    if value == "auto":
        cores = cores if cores is not None else os.cpu_count() or 1
        return max(1, min(cores, agents // AGENTS_PER_WORKER))
    n = int(value)  # ValueError for anything else
    if n < 1:
        raise ValueError("--workers must be at least 1")
    return n


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> ``(K, N)`` with ``0 <= K < N``; ``ValueError`` otherwise."""
    try:
        k_text, n_text = text.split("/")
        k, n = int(k_text), int(n_text)
    except ValueError:
        raise ValueError(f"shard {text!r}: use K/N, e.g. 0/2") from None
    if n < 1 or not 0 <= k < n:
        raise ValueError(f"shard {text!r}: need 0 <= K < N")
    return k, n


@dataclass(frozen=True)
class WorkerSpec:
    """What every worker of one run shares; ``argv(k)`` is worker ``k``'s command."""

    config: Path
    run_id: str
    run_dir: Path
    count: int
    redis_url: str
    mqtt_url: str
    world: str  # "none" or HOST:PORT
    admin_url: str | None = None  # handed over in the environment: it carries a token
    shards: str | None = None  # world shards (agent_runtime/app/shards.py), also by environment
    duration: float | None = None
    agents: int | None = None
    llm: str | None = None
    measure_after: float | None = None  # benchmarks: forget lags of the warm-up
    python: str = sys.executable
    #: environment variables with credentials (Redis/broker passwords) for every worker
    secrets: dict[str, str] = field(default_factory=dict, repr=False)

    def folder(self, k: int) -> Path:
        return self.run_dir / "workers" / str(k)

    def argv(self, k: int) -> list[str]:
        argv = [
            self.python, "-m", "agent_runtime.app.cli.main", "worker", str(self.config),
            "--shard", f"{k}/{self.count}", "--run-id", self.run_id,
            "--redis", self.redis_url, "--mqtt", self.mqtt_url, "--world", self.world,
            "--run-dir", str(self.folder(k)),
        ]  # fmt: skip
        if self.agents is not None:
            argv += ["--agents", str(self.agents)]
        if self.llm is not None:
            argv += ["--llm", self.llm]
        if self.measure_after is not None:
            argv += ["--measure-after", str(self.measure_after)]
        return argv


#: what the pool tells its owner about a worker that runs again: worker, seconds it took
#: (from the end being noticed to the worker running again), exit code (None: lost), node
RestartHook = Callable[[int, float, "int | None", "str | None"], None]


@dataclass
class _Worker:
    k: int
    handle: WorkerHandle | None = None
    starts: int = 0
    exits: list[int | None] = field(default_factory=list)
    restart_s: list[float] = field(default_factory=list)


class WorkerPool:
    """Starts N workers through a :class:`~agent_runtime.app.launchers.Launcher`, brings
    back the ones that end early, stops them all.

    With the default :class:`~agent_runtime.app.launchers.process.ProcessLauncher` the
    workers are child processes, restarted after a capped backoff; with
    :class:`~agent_runtime.app.launchers.ray_launcher.RayLauncher` they are Ray actors that
    Ray restarts (the pool only waits for them to answer again). Either way each restart
    calls ``on_restart`` (the coordinator makes it a ``worker_restarted`` event).

    An async context manager: ``__aenter__`` enters the launcher, starts the workers and a
    supervisor task; ``__aexit__`` stops them (SIGTERM: each checkpoints its agents and
    writes its metrics; SIGKILL after ``stop_timeout``) and leaves the launcher.
    """

    def __init__(
        self,
        spec: WorkerSpec,
        *,
        launcher: Launcher | None = None,
        max_backoff: float = 10.0,
        stop_timeout: float = 30.0,
        on_restart: RestartHook | None = None,
    ) -> None:
        if spec.count < 1:
            raise ValueError("need at least one worker")
        from agent_runtime.app.launchers.process import ProcessLauncher

        self.spec = spec
        self.launcher: Launcher = launcher if launcher is not None else ProcessLauncher()
        self.max_backoff = max_backoff
        self.stop_timeout = stop_timeout
        self.on_restart = on_restart
        self.workers = [_Worker(k) for k in range(spec.count)]
        self._stopping = False
        self._tasks: asyncio.TaskGroup | None = None
        self._supervisors: list[asyncio.Task[None]] = []
        self._stack: contextlib.AsyncExitStack | None = None
        self.restarted = asyncio.Event()  # set whenever a dead worker was started again

    @property
    def restarts(self) -> int:
        return sum(max(0, w.starts - 1) for w in self.workers)

    def pids(self) -> list[int | None]:
        return [w.handle.pid if w.handle else None for w in self.workers]

    def nodes(self) -> list[str | None]:
        """The node of each worker (``None``: a child process of this one)."""
        return [w.handle.node if w.handle else None for w in self.workers]

    def env(self) -> dict[str, str]:
        """What workers get in their environment beside this process's own (secrets go
        here, never on their command line)."""
        env: dict[str, str] = {}
        if self.spec.admin_url:
            env[ADMIN_URL_ENV] = self.spec.admin_url
        key = self.spec.run_dir / BODY_KEY_NAME
        if key.exists():  # the path of the run's body key, never the key itself
            env[BODY_KEY_FILE_ENV] = str(key.absolute())
        if self.spec.shards:
            from agent_runtime.app.shards import SHARDS_ENV

            env[SHARDS_ENV] = self.spec.shards
        env.update(self.spec.secrets)
        return env

    async def _start(self, w: _Worker) -> None:
        folder = self.spec.folder(w.k)
        folder.mkdir(parents=True, exist_ok=True)
        w.handle = await self.launcher.start(
            WorkerLaunch(
                k=w.k,
                argv=tuple(self.spec.argv(w.k)),
                env=self.env(),
                log_path=folder / "worker.log",
                stop_timeout=self.stop_timeout,
            )
        )
        w.starts += 1

    async def _supervise(self, w: _Worker) -> None:
        backoff = 0.5
        while True:
            handle = w.handle
            assert handle is not None
            code = await handle.wait()
            if self._stopping:
                return
            noticed = time.monotonic()
            w.exits.append(code)
            log.warning(
                "worker %d %s; it runs again through the %s launcher (its agents resume "
                "from Redis)",
                w.k,
                "was lost" if code is None else f"exited with {code}",
                self.launcher.name,
            )
            w.handle = await self.launcher.restart(handle, backoff)
            backoff = min(self.max_backoff, backoff * 2)
            if self._stopping:
                return
            w.starts += 1
            seconds = round(time.monotonic() - noticed, 3)
            w.restart_s.append(seconds)
            if self.on_restart is not None:
                self.on_restart(w.k, seconds, code, w.handle.node)
            self.restarted.set()

    async def __aenter__(self) -> WorkerPool:
        self._stack = contextlib.AsyncExitStack()
        try:
            await self._stack.enter_async_context(self.launcher)
            for w in self.workers:
                await self._start(w)
            self._tasks = await self._stack.enter_async_context(asyncio.TaskGroup())
            self._supervisors = [
                self._tasks.create_task(self._supervise(w), name=f"workers.supervise[{w.k}]")
                for w in self.workers
            ]
        except BaseException:
            await self.__aexit__()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stopping = True
        for task in self._supervisors:  # one may be waiting for a worker to run again
            task.cancel()
        await asyncio.gather(
            *(w.handle.stop() for w in self.workers if w.handle is not None),
            return_exceptions=True,
        )
        if self._stack is not None:
            stack, self._stack = self._stack, None
            await stack.aclose()

    def merge_into(self, run_dir: Path) -> dict[str, Any]:
        """Concatenate the workers' events into ``run_dir/events.workers.jsonl``; merged metrics."""
        with (run_dir / "events.workers.jsonl").open("w", encoding="utf-8") as out:
            for w in self.workers:
                events = self.spec.folder(w.k) / "events.jsonl"
                if events.exists():
                    with events.open(encoding="utf-8") as src:
                        for line in src:
                            out.write(line)
        return self.metrics()

    def metrics(self) -> dict[str, Any]:
        """The run's figures from the workers' ``metrics.json`` (see :func:`merge_metrics`),
        with the pool's own: workers, restarts and every worker's exit codes."""
        parts: list[dict[str, Any]] = []
        for w in self.workers:
            metrics = self.spec.folder(w.k) / "metrics.json"
            if metrics.exists():
                with contextlib.suppress(ValueError):
                    parts.append(json.loads(metrics.read_text()))
        merged = merge_metrics(parts)
        merged["workers"] = {
            "count": len(self.workers),
            "launcher": self.launcher.name,
            "restarts": self.restarts,
            "exits": {str(w.k): w.exits for w in self.workers},
            "restart_s": {str(w.k): w.restart_s for w in self.workers},
        }
        return merged


def _sum_into(total: dict[str, Any], part: dict[str, Any]) -> None:
    for key, value in part.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            total[key] = total.get(key, 0) + value
        elif isinstance(value, dict):
            _sum_into(total.setdefault(key, {}), value)


def merge_metrics(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One run's figures from its workers' ``metrics.json``: counts add up, per-agent maps
    are joined (agents are disjoint), percentiles take the worst worker (an upper bound)."""
    out: dict[str, Any] = {"agents": 0, "events": {}, "modules": {}, "module_steps": 0}
    out["module_errors"] = 0
    for part in parts:
        out["agents"] += int(part.get("agents", 0))
        out["module_steps"] += int(part.get("module_steps", 0))
        out["module_errors"] += int(part.get("module_errors", 0))
        _sum_into(out["events"], part.get("events", {}))
        _sum_into(out["modules"], part.get("modules", {}))
        for key in ("social_graph", "goal_histories", "unresponsive_agents"):
            if isinstance(part.get(key), dict):
                out.setdefault(key, {}).update(part[key])
        for key in ("sched_lag_ms",):
            for p, v in (part.get(key) or {}).items():
                out.setdefault(key, {})[p] = max(out.get(key, {}).get(p, 0.0), v)
    out["per_worker"] = [
        {k: part.get(k) for k in ("agents", "wall_s", "stop_reason", "sched_lag_ms")}
        for part in parts
    ]
    return out


#: Records about a worker process itself, not about the village: they stay in the worker's
#: own log (the run's log has the coordinator's).
WORKER_ONLY_EVENTS = frozenset({"run_started", "run_stopped"})


class EventFollower:
    """Copies what every worker appends to its ``events.jsonl`` into one :class:`EventLog`
    (the coordinator's) while the run goes on, so that the run's ``events.jsonl`` and the
    listeners of that log see the records of every agent, wherever it is hosted.

    A copied record keeps its fields (its ``t`` too) and gains ``worker: K``; records of the
    worker process itself (:data:`WORKER_ONLY_EVENTS`) are not copied. An async context
    manager: ``__aenter__`` starts one task that reads every file's new complete lines every
    ``every`` seconds; ``__aexit__`` stops it and reads what is left, so exit it after the
    workers have stopped (they flush their logs on SIGTERM). A worker restarted on its folder
    appends to the same file; a file that shrank is read again from its start.
    """

    def __init__(self, folders: Sequence[Path], into: EventLog, *, every: float = 0.25) -> None:
        require_positive(every=every)
        self.files = [Path(f) / "events.jsonl" for f in folders]
        self.into = into
        self.every = every
        self.copied = 0
        self.broken = 0  # lines that were not JSON objects
        self._offsets = [0] * len(self.files)
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> EventFollower:
        self._task = asyncio.create_task(self._follow(), name="workers.events")
        return self

    async def __aexit__(self, *exc: object) -> None:
        task, self._task = self._task, None
        if task is not None:
            await cancel_and_wait(task)
        self.poll()

    async def _follow(self) -> None:
        while True:
            self.poll()
            await asyncio.sleep(self.every)

    def poll(self) -> int:
        """Copy every complete line written since the last call; returns how many."""
        n = 0
        for k, path in enumerate(self.files):
            for record in self._new_records(k, path):
                kind = record.pop("type", None)
                if not isinstance(kind, str) or kind in WORKER_ONLY_EVENTS:
                    continue
                agent = record.pop("agent", None)
                self.into.emit(kind, agent if isinstance(agent, str) else None,
                               **{**record, "worker": k})  # fmt: skip
                n += 1
        self.copied += n
        return n

    def _new_records(self, k: int, path: Path) -> list[dict[str, Any]]:
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return []
        if size < self._offsets[k]:
            self._offsets[k] = 0
        if size == self._offsets[k]:
            return []
        with path.open("rb") as f:
            f.seek(self._offsets[k])
            chunk = f.read(size - self._offsets[k])
        end = chunk.rfind(b"\n")
        if end < 0:  # a line still being written
            return []
        self._offsets[k] += end + 1
        out: list[dict[str, Any]] = []
        for line in chunk[:end].splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if isinstance(record, dict):
                out.append(record)
            else:
                self.broken += 1
        return out


def in_shard(index: int, k: int, n: int) -> bool:
    """Agent ``index`` (its place in the resolved list) belongs to worker ``k`` of ``n``."""
    return index % n == k
