"""A Village: services, world, bodies and many agents for one run, with a clean shutdown.

``Village`` is an async context manager built in layers on one ``AsyncExitStack``:
run folder and event log -> Redis (embedded or URL) -> MQTT bus (embedded or
URL) -> state store -> LLM service -> world (embedded server, external, or
none) and bot transport -> agents. Leaving it (normally, on an error, or when
``run()`` sees SIGINT/SIGTERM) unwinds the layers in reverse: agents stop and
checkpoint their modules, state is flushed to Redis, bots disconnect, child
processes are stopped by pid, and ``metrics.json`` is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

from agent_runtime.agent import Agent
from agent_runtime.agent_memory import Encoder
from agent_runtime.agent_services import AgentServices
from agent_runtime.app.metrics import Cancellations, collect_metrics
from agent_runtime.app.progress import bench_counters, village_figures  # issues 14, 15
from agent_runtime.app.run_folder import RunFolderLock, shown_config
from agent_runtime.app.workers import in_shard
from agent_runtime.app.world_setup import WorldHandle
from agent_runtime.app.worlds import open_world
from agent_runtime.bus import MqttBus, parse_mqtt_url, topics
from agent_runtime.bus.messages import Progress, RunStatus
from agent_runtime.clock import Clock, wall_time
from agent_runtime.config.loader import ResolvedAgent, resolve_agents
from agent_runtime.config.models import VillageConfig
from agent_runtime.config.urls import public_url
from agent_runtime.interfaces import Body, Bus
from agent_runtime.run.coherence import CoherenceTracker
from agent_runtime.run.events import EventLog
from agent_runtime.run.responsiveness import ACT_S, DECIDE_S, Responsiveness
from agent_runtime.sched_stats import SchedulerMetrics
from agent_runtime.services import LoopbackService, MosquittoBroker, RedisServer, ServiceError
from agent_runtime.services.credentials import Credentials, is_loopback
from agent_runtime.state import keys
from agent_runtime.state.store import StateStore
from agent_runtime.tasks import cancel_and_wait

log = logging.getLogger(__name__)

#: longest wait at start-up for the broker to confirm the agents' subscriptions
SUBSCRIBE_TIMEOUT_S = 30.0

S = TypeVar("S", bound=LoopbackService)


@dataclass
class VillageOptions:
    """Knobs that are not part of the village file (CLI flags, tests, benchmarks)."""

    run_dir: Path
    run_id: str
    agent_limit: int | None = None
    llm_override: Any = None  # a LanguageModel used for every module (benchmarks, tests)
    embedder: Encoder | None = None  # default: the MiniLM numpy encoder
    progress: Callable[[dict[str, Any]], None] | None = None
    bus: Bus | None = None  # inject a bus (tests); default from config
    redis: Redis | None = None  # inject a client (tests); default from config
    extra_modules: dict[str, Any] = field(default_factory=dict)
    # workers (see agent_runtime/app/workers.py): host only the agents of shard K of N, and
    # reach an embedded world that another process started through its admin API
    shard: tuple[int, int] | None = None
    admin_url: str | None = None
    host_agents: bool = True  # False: the coordinator of workers (services + world only)
    server_launcher: Any = None  # --cluster: embedded world shards as actors (app/launchers)
    # the address embedded Redis and broker listen on (and workers reach them at); beyond
    # loopback they ask for credentials generated for the run (services/credentials.py)
    services_host: str = "127.0.0.1"
    credentials: Credentials | None = None  # set by the village when it generated them
    # the live page (agent_runtime/app/web) in its own process: None = off, 0 = a free port
    web_port: int | None = None


class Village:
    def __init__(self, config: VillageConfig, options: VillageOptions) -> None:
        self.config = config
        self.options = options
        self.run_id = options.run_id
        self.run_dir = options.run_dir
        self.clock = Clock(
            time_scale=config.run.time_scale,
            game_hours_per_second=config.run.game_hours_per_second,
        )
        self.rng = random.Random(config.run.seed)
        self.metrics = SchedulerMetrics()
        self.events = EventLog(self.run_dir / "events.jsonl")
        self.coherence = CoherenceTracker(window_s=30.0 * config.run.time_scale)
        self.events.add_listener(self.coherence)
        self.cancellations = Cancellations()  # decision_cancelled per agent-hour, by reason
        self.events.add_listener(self.cancellations)
        self.responsiveness = Responsiveness(
            decide_s=DECIDE_S * config.run.time_scale, act_s=ACT_S * config.run.time_scale
        )
        self.events.add_listener(self.responsiveness)
        self.agents: dict[str, Agent] = {}
        self.bodies: dict[str, Body] = {}
        self.resolved: list[ResolvedAgent] = []
        self.services: AgentServices | None = None
        self.world: WorldHandle | None = None
        self.redis_server: RedisServer | None = None
        self.broker: MosquittoBroker | None = None
        self.bus: Bus | None = None
        self.redis_url: str | None = None  # what workers connect to (None: injected client)
        self.mqtt_url: str | None = None
        self.web: Any = None  # agent_runtime.app.web.WebView when the page runs
        self.store: StateStore | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._lock = RunFolderLock(self.run_dir)
        self.started_at = 0.0
        self.stopped_at = 0.0
        self.stop_reason = ""

    # --- lifecycle ------------------------------------------------------------------
    async def __aenter__(self) -> Village:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock.acquire()  # one village per run folder; RunFolderBusy otherwise
        (self.run_dir / "config.resolved.yaml").write_text(
            yaml.safe_dump(shown_config(self.config), sort_keys=False)
        )
        self._stack = contextlib.AsyncExitStack()
        try:
            await self._open(self._stack)
        except BaseException:
            await self._close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._close()

    async def _close(self) -> None:
        self.stopped_at = self.stopped_at or wall_time()
        for agent in self.agents.values():
            agent.request_stop()
        stack, self._stack = self._stack, None
        if stack is not None:
            try:
                await stack.aclose()
            finally:
                try:
                    data = json.dumps(self.summary(), indent=2, default=str)
                    (self.run_dir / "metrics.json").write_text(data)
                except Exception:
                    log.exception("could not write metrics.json")
                self._lock.release()

    async def _open(self, stack: contextlib.AsyncExitStack) -> None:
        cfg = self.config
        self.started_at = wall_time()
        self.clock.started = self.started_at
        await stack.enter_async_context(self.events)
        self.events.emit("run_started", run_id=self.run_id, seed=cfg.run.seed)
        stack.callback(self._on_stopped)

        # Redis
        host = self.options.services_host
        creds = None if is_loopback(host) else self.options.credentials or Credentials.generate()
        self.options.credentials = creds
        redis = self.options.redis
        if redis is None:
            url = secret_url = cfg.services.redis
            if url == "embedded":
                password = creds.redis_password if creds else None
                server = RedisServer(self.run_dir / "redis", host=host, password=password)
                self.redis_server = await self._embedded(stack, server)
                url, secret_url = server.url, server.secret_url
            self.redis_url = url  # workers get the password by environment, not in the URL
            pool = BlockingConnectionPool.from_url(secret_url, max_connections=256, timeout=20)
            redis = Redis(connection_pool=pool)
            stack.push_async_callback(redis.aclose)
            try:
                async with asyncio.timeout(10):
                    await redis.ping()
            except (RedisError, OSError, TimeoutError) as err:
                raise ServiceError(f"cannot reach Redis at {public_url(url)}: {err}") from None
        # MQTT
        bus = self.options.bus
        if bus is None:
            url = cfg.services.mqtt
            user = password = None
            mqtt_user = creds.mqtt_user if creds else "piano"
            if url == "embedded":
                password = creds.mqtt_password if creds else None
                broker = MosquittoBroker(
                    self.run_dir / "mqtt", host=host, password=password, user=mqtt_user
                )
                self.broker = await self._embedded(stack, broker)
                url = self.broker.url
                if creds:
                    user = creds.mqtt_user
            self.mqtt_url = url
            mqtt_host, port = parse_mqtt_url(url)
            try:
                bus = await stack.enter_async_context(
                    MqttBus(mqtt_host, port, self.run_id, username=user, password=password)
                )
            except ConnectionError as err:
                raise ServiceError(
                    f"cannot reach the MQTT broker at {public_url(url)}: {err}"
                ) from None
        self.bus = bus
        await redis.hset(
            keys.meta(self.run_id),
            mapping={"config": json.dumps(shown_config(cfg)), "started": str(self.started_at)},
        )
        self.store = await stack.enter_async_context(StateStore(redis, self.run_id))

        # LLM
        llm_service = await self._open_llm(stack)

        # world and bodies
        self.world = await stack.enter_async_context(
            open_world(
                cfg,
                self.run_dir,
                self.events,
                admin_url=self.options.admin_url,
                bodies=self.options.host_agents,
                servers=self.options.server_launcher,
            )
        )
        await self._open_web(stack)  # web view: before agents join, so it sees them
        self._write_run_info()
        self.resolved = resolve_agents(
            cfg,
            place_memories=self.world.place_memories(),
            limit=self.options.agent_limit,
            rng=random.Random(self.rng.getrandbits(64)),
        )
        if not self.options.host_agents:
            self.resolved = []
        elif self.options.shard is not None:
            k, n = self.options.shard
            self.resolved = [a for i, a in enumerate(self.resolved) if in_shard(i, k, n)]
        self.services = AgentServices(
            run_id=self.run_id,
            config=cfg,
            store=self.store,
            bus=bus,
            events=self.events,
            clock=self.clock,
            metrics=self.metrics,
            redis=redis,
            llm=llm_service,
            embedder=await self._embedder(),
        )
        from modules.registry import build_modules  # modules depend on the runtime, not back

        await self.store.load_agents([a.name for a in self.resolved])
        await self._connect_bodies(self.world)
        for spec in self.resolved:
            body = self.bodies[spec.name]
            # seeded by the agent's name: the same wherever (in whichever worker) it runs
            agent_rng = random.Random(f"{cfg.run.seed}:{spec.name}")
            mods = build_modules(cfg, spec, agent_rng)
            agent = Agent(spec, mods, body, self.services, agent_rng)
            self.agents[spec.name] = await stack.enter_async_context(agent)
        if self.bodies:  # 3D views from the agents' eyes, when the page asks
            from agent_runtime.app.view3d import ViewDesk

            await stack.enter_async_context(ViewDesk(bus, self.run_id, self.bodies))
        try:  # the agents' topics at the broker before the village says it runs
            async with asyncio.timeout(SUBSCRIBE_TIMEOUT_S):
                await bus.subscriptions_ready()
        except TimeoutError:
            log.warning("the broker has not confirmed every subscription yet; going on")
        await bus.publish(
            topics.run(self.run_id, "status"), RunStatus(status="running", agents=len(self.agents))
        )

    async def _open_web(self, stack: contextlib.AsyncExitStack) -> None:
        """The live page, beside the village in its own process (see agent_runtime/app/web)."""
        port = self.options.web_port
        if port is None or not self.redis_url or not self.mqtt_url:
            return
        from agent_runtime.app.web import WebView

        admin = self.world.admin_url if self.world is not None else None
        self.web = await stack.enter_async_context(
            WebView(
                run_id=self.run_id,
                redis_url=self.redis_url,
                mqtt_url=self.mqtt_url,
                run_dir=self.run_dir,
                admin_url=admin,
                port=port,
            )
        )

    async def _connect_bodies(self, world: WorldHandle, parallel: int = 5) -> None:
        """Join all bodies to the world, ``parallel`` at a time (a failure cancels the rest)."""
        gate = asyncio.Semaphore(parallel)

        async def join(spec: ResolvedAgent) -> None:
            async with gate:
                self.bodies[spec.name] = await world.connect(spec)

        try:
            async with asyncio.TaskGroup() as tg:
                for spec in self.resolved:
                    tg.create_task(join(spec), name=f"village.join[{spec.name}]")
        except ExceptionGroup as group:  # report the first failure as itself (e.g. WorldError)
            raise group.exceptions[0] from None

    async def _open_llm(self, stack: contextlib.AsyncExitStack) -> Any:
        from agent_runtime.llm.factory import LLMService

        service = LLMService(
            self.config.llm,
            run_dir=self.run_dir,
            seed=self.config.run.seed,
            backend=self.options.llm_override,
            events=self.events.emit,  # llm_budget: what a spending rate sheds, and when
        )
        return await stack.enter_async_context(service)

    async def _embedder(self) -> Encoder:
        if self.options.embedder is not None:
            return self.options.embedder
        from modules.memory.encoder import HashingEncoder, MiniLMEncoder

        if self.config.run.embedder == "hashing":
            return HashingEncoder()

        encoder = MiniLMEncoder()
        await asyncio.to_thread(encoder.load)  # weights load off the event loop, once
        return encoder

    async def _embedded(self, stack: contextlib.AsyncExitStack, service: S) -> S:
        """Start ``service`` for this run and restart it whenever it dies, until the village
        closes (the task is cancelled before the service is stopped: callbacks unwind in
        reverse order)."""
        await stack.enter_async_context(service)

        def restarted(message: str) -> None:
            self.events.emit("service_restarted", service=service.binary, message=message)

        task = asyncio.create_task(
            service.supervise(restarted), name=f"village.supervise[{service.binary}]"
        )

        stack.push_async_callback(cancel_and_wait, task)
        return service

    def _write_run_info(self) -> None:
        """``run.json``: who runs this folder and where its services are (no secrets)."""
        info = {
            "run_id": self.run_id,
            "pid": os.getpid(),
            "started": self.started_at,
            "redis": public_url(self.redis_url) if self.redis_url else None,
            "mqtt": public_url(self.mqtt_url) if self.mqtt_url else None,
            "world": self.world.join_address if self.world is not None else None,
            "shard": list(self.options.shard) if self.options.shard else None,
            "service_pids": {
                "redis": self.redis_server.pid if self.redis_server else None,
                "mqtt": self.broker.pid if self.broker else None,
            },
        }
        (self.run_dir / "run.json").write_text(json.dumps(info, indent=2))

    def _on_stopped(self) -> None:
        self.events.emit("run_stopped", reason=self.stop_reason or "exit")

    # --- running ----------------------------------------------------------------------
    async def run(self, duration: float | None = None, stop: asyncio.Event | None = None) -> str:
        """Run until ``duration`` seconds pass, ``stop`` is set, or SIGINT/SIGTERM arrives.

        With a ``stop`` event of its own the caller owns the signals (an experiment stops
        all its runs on one Ctrl-C); without one the village handles them for this run."""
        own_signals = stop is None
        stop = stop or asyncio.Event()
        loop = asyncio.get_running_loop()
        installed: list[signal.Signals] = []
        for sig in (signal.SIGINT, signal.SIGTERM) if own_signals else ():
            try:
                loop.add_signal_handler(sig, self._signalled, stop, sig)
                installed.append(sig)
            except (NotImplementedError, RuntimeError):  # not the main thread
                pass
        every = self.config.run.progress_every
        deadline = None if duration is None else loop.time() + duration
        try:
            while not stop.is_set():
                timeout = every if deadline is None else min(every, deadline - loop.time())
                if timeout <= 0:
                    self.stop_reason = self.stop_reason or "duration reached"
                    break
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await stop.wait()
                await self._progress()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
        return self.stop_reason or "stopped"

    def _signalled(self, stop: asyncio.Event, sig: int) -> None:
        self.stop_reason = f"signal {signal.Signals(sig).name}"
        stop.set()

    def unresponsive(self) -> dict[str, str]:
        """Agents that count as unresponsive now (see agent_runtime/run/responsiveness.py)."""
        return self.responsiveness.unresponsive(
            self.agents,
            self.metrics.last_step,
            now=wall_time(),
            started=self.started_at,
            bodies=self.world is not None and self.world.kind != "none",
        )

    async def _progress(self) -> None:
        info: dict[str, Any] = {
            "elapsed_s": round(wall_time() - self.started_at, 1),
            "agents": len(self.agents),
            "decisions": self.events.counts.get("decision", 0),
            "speech": self.events.counts.get("speech", 0),
            "skills": self.events.counts.get("skill_outcome", 0),
            "errors": self.events.counts.get("module_error", 0),
            "unresponsive": len(self.unresponsive()),
        }
        info.update(village_figures(self))  # lag, LLM use, coherence, positions
        info.update(bench_counters(self))  # what benchmarks take deltas of
        if self.options.shard is not None:
            info["shard"] = list(self.options.shard)
        self.events.emit("progress", None, **info)
        if self.bus is not None and self.options.host_agents:
            await self.bus.publish(
                topics.run(self.run_id, "progress"), Progress.model_validate(info)
            )
        if self.options.progress is not None:
            self.options.progress(info)

    # --- metrics ----------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        return collect_metrics(self)
