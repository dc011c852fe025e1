"""``piano bench runtime --workers N`` (N > 1): the same village as the one-process bench,
spread over N ``piano worker`` processes that share one redis-server and one mosquitto.

Figures come from the workers themselves: decisions, LLM calls, shed calls, messages
published (each goes to the broker), timed steps per module and unresponsive agents from
their ``run/progress`` messages (each worker's deltas over its own clock between its first
and last record of the measured window, summed), scheduling lag from each worker's
``metrics.json`` (lags before the warm-up are dropped by ``--measure-after``; the p50/p99
printed is the worst worker's, an upper bound), CPU and RSS summed over the worker
processes, the services measured as in the one-process bench; Redis commands/s from the
server's INFO. This process subscribes to the progress topic only: it does not receive
(and pay for) the village's traffic.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import yaml
from redis.asyncio import Redis

from agent_runtime import event_loop
from agent_runtime.app.cli.bench_counts import cadence_errors, count_errors, redis_commands
from agent_runtime.app.launchers import open_launcher
from agent_runtime.app.launchers.actor_costs import village_requests
from agent_runtime.app.workers import WorkerPool, WorkerSpec
from agent_runtime.bus import MqttBus, parse_mqtt_url, topics
from agent_runtime.bus.messages import Progress
from agent_runtime.clock import wall_time
from agent_runtime.config.models import VillageConfig
from agent_runtime.services import MosquittoBroker, RedisServer


def _cpu(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            total += t.user + t.system
            for c in p.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    ct = c.cpu_times()
                    total += ct.user + ct.system
    return total


def _rss_mb(procs: list[psutil.Process]) -> float:
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total / 2**20


Records = dict[str, dict[str, Any]]  # worker (shard K) -> its latest progress record


def worker_events(run_dir: Path) -> Iterator[dict[str, Any]]:
    """The workers' events as merged into the run folder (lines that do not parse skipped)."""
    path = run_dir / "events.workers.jsonl"
    if not path.exists():
        return
    with path.open(encoding="utf-8") as f:
        for line in f:
            with contextlib.suppress(ValueError):
                yield json.loads(line)


def _delta(first: Records, last: Records, key: str) -> int:
    """A counter's growth between two sets of records, summed over workers (the window's
    count, as the one-process bench takes it; a worker without a first record counts all)."""
    return sum(int(b.get(key, 0)) - int(first.get(k, {}).get(key, 0)) for k, b in last.items())


def _rates(first: Records, last: Records, *keys: str) -> list[float]:
    """Each counter's rate per second, summed over workers: every worker's delta over
    the time between its own two records."""
    out = [0.0] * len(keys)
    for shard, b in last.items():
        a = first.get(shard)
        dt = float(b.get("elapsed_s", 0)) - float(a.get("elapsed_s", 0)) if a else 0.0
        if a is None or dt <= 0:
            continue
        for i, k in enumerate(keys):
            out[i] += (float(b.get(k, 0) or 0) - float(a.get(k, 0) or 0)) / dt
    return out


def _cadence(first: Records, last: Records) -> tuple[dict[str, float], float]:
    """Timed steps achieved vs configured per module, over every worker's window."""
    achieved: dict[str, float] = {}
    expected: dict[str, float] = {}
    for shard, b in last.items():
        a = first.get(shard)
        dt = float(b.get("elapsed_s", 0)) - float(a.get("elapsed_s", 0)) if a else 0.0
        if a is None or dt <= 0:
            continue
        for name, interval in (b.get("module_interval") or {}).items():
            agents = int((b.get("module_agents") or {}).get(name, 0))
            got = int((b.get("module_timed") or {}).get(name, 0))
            before = int((a.get("module_timed") or {}).get(name, 0))
            achieved[name] = achieved.get(name, 0.0) + got - before
            expected[name] = expected.get(name, 0.0) + agents * dt / float(interval)
    return cadence_errors(achieved, expected)


async def bench_workers(
    args: argparse.Namespace, cfg: VillageConfig, warmup: float
) -> dict[str, Any]:
    run_id = f"bench{int(wall_time())}"
    with tempfile.TemporaryDirectory(prefix="piano-bench-") as tmp:
        run_dir = Path(args.out) if args.out else Path(tmp) / "run"
        run_dir.mkdir(parents=True, exist_ok=True)
        config = run_dir / "bench.yaml"
        data = cfg.model_dump(mode="json", exclude_defaults=True)
        data.setdefault("run", {})["embedder"] = "hashing"
        config.write_text(yaml.safe_dump(data, sort_keys=False))
        t_start = time.monotonic()
        async with (
            RedisServer(run_dir / "redis") as redis,
            MosquittoBroker(run_dir / "mqtt") as broker,
        ):
            host, port = parse_mqtt_url(broker.url)
            client = Redis.from_url(redis.url)
            async with MqttBus(host, port, run_id) as bus, client:
                latest: dict[str, dict[str, Any]] = {}
                all_up = asyncio.Event()
                sub = bus.subscribe(topics.run(run_id, "progress"), maxsize=4096)

                def drain() -> None:
                    while (msg := sub.get_nowait()) is not None:
                        if isinstance(msg.payload, Progress):
                            figures = msg.payload.figures()
                            latest[str(figures.get("shard", ["?"])[0])] = figures
                    if sum(int(p.get("agents", 0)) for p in latest.values()) >= args.agents:
                        all_up.set()

                sub.on_put = drain
                spec = WorkerSpec(
                    config=config.absolute(),  # an actor's process starts in another folder
                    run_id=run_id,
                    run_dir=run_dir.absolute(),
                    count=args.workers,
                    redis_url=redis.url,
                    mqtt_url=broker.url,
                    world="none",
                    measure_after=warmup,
                )
                cluster = getattr(args, "cluster", None)
                worker_cpus, _ = village_requests(args.agents, args.workers, 1, embodied=False)
                launcher = open_launcher(cluster, num_cpus=worker_cpus)
                async with WorkerPool(spec, launcher=launcher) as pool:
                    async with asyncio.timeout(120 + args.agents / 10):
                        await all_up.wait()
                    startup_s = time.monotonic() - t_start
                    await asyncio.sleep(warmup)
                    procs = [psutil.Process(p) for p in pool.pids() if p]
                    services = [psutil.Process(p) for p in (redis.pid, broker.pid) if p]
                    first = copy.deepcopy(latest)
                    a_redis = await redis_commands(client)
                    a_cpu, a_svc, a_t = _cpu(procs), _cpu(services), time.monotonic()
                    a_wall = wall_time()
                    await asyncio.sleep(args.duration)
                    last = copy.deepcopy(latest)
                    b_redis = await redis_commands(client)
                    b_cpu, b_svc, b_t = _cpu(procs), _cpu(services), time.monotonic()
                    b_wall = wall_time()
                    unresponsive = sum(int(p.get("unresponsive", 0)) for p in latest.values())
                    errors = _delta(first, last, "errors")
                    rss = _rss_mb(procs)
                merged = pool.merge_into(run_dir)
                errors_by_kind = count_errors(worker_events(run_dir), a_wall, b_wall)
        wall = b_t - a_t
        lag = merged.get("sched_lag_ms", {})
        dec, skills, llm_calls, shed, published = _rates(
            first, last, "decisions", "skills", "llm_calls", "llm_shed", "bus_published"
        )
        per_module, cadence_error = _cadence(first, last)
        return {
            "agents": args.agents,
            "workers": args.workers,
            # process, or ray (then the actors' own processes are not in cpu_pct)
            "launcher": merged["workers"]["launcher"],
            "event_loop": event_loop.loop_name(),  # the workers' (they inherit the environment)
            "llm": "heuristic" if args.heuristic else f"simulated {args.llm_latency * 1000:.0f} ms",
            "skill_seconds": args.skill_seconds,
            "duration_s": round(wall, 2),
            "startup_s": round(startup_s, 2),
            "cc_decisions_per_s": round(dec, 2),
            "skills_per_agent_s": round(skills / args.agents, 4),
            "cadence_error_pct": cadence_error,
            "cadence_error_by_module_pct": per_module,
            "sched_lag_ms_p50": lag.get("p50"),
            "sched_lag_ms_p99": lag.get("p99"),
            "sched_lag_ms_per_worker": [w.get("sched_lag_ms") for w in merged["per_worker"]],
            "redis_ops_per_s": round((b_redis - a_redis) / wall, 1),
            "mqtt_msgs_per_s": round(published, 1),
            "llm_calls_per_agent_s": round(llm_calls / args.agents, 4),
            "llm_shed_per_s": round(shed, 2),
            "cpu_pct": round(100 * (b_cpu - a_cpu) / wall, 1),
            "cpu_us_per_agent_s": round(1e6 * (b_cpu - a_cpu) / wall / args.agents, 1),
            "services_cpu_pct": round(100 * (b_svc - a_svc) / wall, 1),
            "rss_mb": round(rss, 1),
            "rss_mb_per_agent": round(rss / args.agents, 3),
            "unresponsive_agents": unresponsive,
            "errors": errors,
            "errors_by_kind": errors_by_kind,
            "worker_restarts": merged["workers"]["restarts"],
            "gc_per_worker": [p.get("gc") for _, p in sorted(last.items())],
        }
