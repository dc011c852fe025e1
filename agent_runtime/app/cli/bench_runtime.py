"""``piano bench runtime``: N agents, every module at default cadence, ``--world none``, a
simulated LLM answering after ``--llm-latency`` seconds, no-op bodies whose skills take
``--skill-seconds`` (default: the median measured in world runs) and fail, real
redis-server and mosquitto.

Prints one JSON object. Figures are measured over a window after a warm-up:
module steps/s, CC decisions/s, skills per agent-second, cadence error (timer-driven steps achieved vs
configured, over cadenced modules), scheduling lag p50/p99 (how late a step
started against its due time), Redis commands/s (all clients, from the server's INFO;
``state_redis_ops_per_s``: the Agent State's share), MQTT messages/s (received from
the broker), RSS and CPU of this process (and of the two services; CPU also per agent-second),
LLM calls per agent-second and calls shed to the heuristic, unresponsive agents, errors.
Memory uses the hashing encoder here (MiniLM for 1000 agents is a separate cost:
see ``modules/memory/README.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from agent_runtime import event_loop, gc_settings
from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.cli.bench_counts import cadence_errors, count_errors, redis_commands
from agent_runtime.app.cli.bench_flags import add_llm_latency
from agent_runtime.app.launchers import CLUSTER_HELP, parse_cluster
from agent_runtime.app.metrics import percentiles
from agent_runtime.app.progress import tick
from agent_runtime.app.workers import WORKERS_HELP, worker_count
from agent_runtime.clock import wall_time
from agent_runtime.config.loader import parse_config
from agent_runtime.gc_settings import settle_after_startup
from modules.memory.persistence import stream_prefix

#: The no-op body's skill time by default: the median skill (chat excluded) measured in the
#: world runs of the culture and item-progression experiments (10.9 s and 10.1 s; 0.054 and
#: 0.089 skills per agent-second). At 0 every skill fails at once and each agent re-decides,
#: re-plans and "recovers" several times a second, 5-8 times the skills of a village.
DEFAULT_SKILL_SECONDS = 10.0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("runtime", help="scheduler/state/bus throughput without a world")
    p.add_argument("--agents", type=int, default=100)
    add_llm_latency(p, 0.3, "the simulated LLM's answer time")
    p.add_argument("--duration", type=float, default=30.0, help="measured seconds (after warm-up)")
    p.add_argument(
        "--warmup", type=float, default=None, help="seconds before measuring (default: 10%% + 5)"
    )
    p.add_argument(
        "--heuristic", action="store_true", help="no simulated LLM: heuristic brain only"
    )
    p.add_argument("--out", help="keep the run folder here (default: a temporary folder)")
    p.add_argument(  # web view
        "--web",
        action="store_true",
        help="also measure scheduling lag with the live page open in headless Chromium",
    )
    p.add_argument("--workers", default="auto", help=WORKERS_HELP)
    p.add_argument("--cluster", help=CLUSTER_HELP)
    p.add_argument(
        "--skill-seconds",
        type=float,
        default=DEFAULT_SKILL_SECONDS,
        help="seconds a skill takes before the no-op body answers (0.5x-1.5x each; default "
        f"{DEFAULT_SKILL_SECONDS:g}: the median skill of world runs; 0: at once, a stress case "
        "where every agent is in its failure-recovery loop)",
    )
    add_json_out(p)


MAX_TEMPLATE_AGENTS = 2000


def _config(agents: int, latency_ms: float, heuristic: bool, skill_seconds: float = 0.0) -> Any:
    llm: dict[str, Any] = (
        {"provider": "heuristic"}
        if heuristic
        else {
            "provider": "simulated",
            "simulated_latency_ms": latency_ms,
            "concurrency": 100000,
            # a simulated endpoint serves any number at once, like a hosted API: the
            # adaptive limit (made for one-at-a-time local servers) would read this process's
            # own event-loop lag as server queueing and shed most calls to the heuristic
            "adaptive_concurrency": False,
            "log_prompts": False,
            "queue_timeout_s": 600,
        }
    )
    return parse_config(
        {
            "run": {"seed": 1, "duration": None, "progress_every": 5},
            "world": {"kind": "none", "null_skill_seconds": skill_seconds},
            "llm": llm,
            "modules": {"preset": "full"},
            "agent_templates": [  # a template holds at most MAX_TEMPLATE_AGENTS
                {"count": min(MAX_TEMPLATE_AGENTS, agents - start), "random_personality": True}
                for start in range(0, agents, MAX_TEMPLATE_AGENTS)
            ],
        },
        "<bench>",
    )


async def _memories(v: Any) -> int:
    """Memory records of all agents, counted in Redis in one pipeline."""
    if v.services is None or v.services.redis is None:
        return 0
    pipe = v.services.redis.pipeline(transaction=False)
    for name in v.agents:
        pipe.hlen(stream_prefix(v.run_id, name) + "records")
    return int(sum(await pipe.execute()))


def llm_figures(v: Any) -> tuple[int, int]:
    """(LLM calls, calls shed to the heuristic) so far, from the LLM service's accounting."""
    llm = None if v.services is None else v.services.llm
    if llm is None or not getattr(llm, "uses_llm", False):
        return 0, 0
    p = llm.progress()
    return int(p.get("llm_calls", 0)), int(p.get("shed", 0))


def _snapshot(v: Any, proc: psutil.Process, services: list[psutil.Process]) -> dict[str, float]:
    totals = v.metrics.module_totals()
    cpu = proc.cpu_times()
    svc_cpu = 0.0
    for s in services:
        try:
            t = s.cpu_times()
            svc_cpu += t.user + t.system
        except psutil.Error:
            pass
    bus = v.bus
    return {
        "t": time.monotonic(),
        "steps": float(sum(m["steps"] for m in totals.values())),
        "decisions": float(v.events.counts.get("decision", 0)),
        "skills": float(v.events.counts.get("skill_outcome", 0)),
        "redis_ops": float(v.store.ops if v.store else 0),
        "mqtt": float(getattr(bus, "received", 0)),
        "cpu": cpu.user + cpu.system,
        "svc_cpu": svc_cpu,
        "errors": float(v.events.counts.get("module_error", 0)),
        "llm_calls": float(llm_figures(v)[0]),
        "llm_shed": float(llm_figures(v)[1]),
        "overruns": float(sum(m["overruns"] for m in totals.values())),
        **{f"timed:{k}": float(m["timed"]) for k, m in totals.items()},
    }


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    from agent_runtime.app.village import Village, VillageOptions
    from modules.memory.encoder import HashingEncoder

    cfg = _config(args.agents, args.llm_latency * 1000, args.heuristic, args.skill_seconds)
    warmup = args.warmup if args.warmup is not None else 5.0 + 0.1 * args.duration
    with tempfile.TemporaryDirectory(prefix="piano-bench-") as tmp:
        run_dir = Path(args.out) if args.out else Path(tmp) / "run"
        opts = VillageOptions(
            run_dir=run_dir, run_id=f"bench{int(wall_time())}", embedder=HashingEncoder()
        )
        proc = psutil.Process()
        t_start = time.monotonic()
        web: dict[str, Any] | None = None
        async with Village(cfg, opts) as v:
            startup_s = time.monotonic() - t_start
            settle_after_startup()  # as piano run and piano worker do
            total_s = warmup + args.duration * (4 if getattr(args, "web", False) else 1)
            ticker = asyncio.create_task(tick(v, total_s, "bench runtime"), name="bench.progress")
            services = [
                psutil.Process(p)
                for p in (v.redis_server and v.redis_server.pid, v.broker and v.broker.pid)
                if p
            ]
            await asyncio.sleep(warmup)
            # the bench's own round trips (one reply per agent) stall the loop: outside the
            # window, before its start and after its figures are taken
            mem_a = await _memories(v)
            redis_a = await redis_commands(v.services and v.services.redis)
            proc.cpu_percent(None)
            errors_seen: list[dict[str, Any]] = []
            v.events.add_listener(
                lambda r: errors_seen.append(r) if r.get("type") == "module_error" else None
            )
            t_a = wall_time()
            a = _snapshot(v, proc, services)
            v.metrics.reset_lags()
            gc_settings.STATS.reset()
            await asyncio.sleep(args.duration)
            lags = list(v.metrics.lags_ms)
            gc_figures = gc_settings.STATS.figures()
            b = _snapshot(v, proc, services)
            t_b = wall_time()
            redis_b = await redis_commands(v.services and v.services.redis)
            mem_b = await _memories(v)
            expected = dict(v.metrics.expected_interval)
            rss_mb = proc.memory_info().rss / 2**20
            svc_rss = sum(s.memory_info().rss for s in services) / 2**20
            n_with = {k: len(lst) for k, lst in v.metrics.stats.items()}
            llm = v.services.llm.snapshot() if v.services and v.services.llm else {}
            unresponsive = len(v.unresponsive())
            if getattr(args, "web", False):  # web view: lag with/without the page
                from agent_runtime.app.web.bench import lag_with_and_without_page

                web = await lag_with_and_without_page(v, args.duration)
            ticker.cancel()  # progress on stderr
        wall = b["t"] - a["t"]
        expected_steps: dict[str, float] = {}
        achieved: dict[str, float] = {}
        for name, interval in expected.items():
            expected_steps[name] = n_with.get(name, 0) * wall / interval
            achieved[name] = b[f"timed:{name}"] - a[f"timed:{name}"]
        per_module, cadence_error = cadence_errors(achieved, expected_steps)
        pct = percentiles(lags, (50, 99))
        result: dict[str, Any] = {
            "agents": args.agents,
            "workers": 1,
            "llm": "heuristic" if args.heuristic else f"simulated {args.llm_latency * 1000:.0f} ms",
            "skill_seconds": args.skill_seconds,
            "event_loop": event_loop.loop_name(),
            "duration_s": round(wall, 2),
            "startup_s": round(startup_s, 2),
            "module_steps_per_s": round((b["steps"] - a["steps"]) / wall, 1),
            "cc_decisions_per_s": round((b["decisions"] - a["decisions"]) / wall, 2),
            "skills_per_agent_s": round((b["skills"] - a["skills"]) / wall / args.agents, 4),
            "cadence_error_pct": cadence_error,
            "cadence_error_by_module_pct": per_module,
            "sched_lag_ms_p50": pct["p50"],
            "sched_lag_ms_p99": pct["p99"],
            "redis_ops_per_s": round((redis_b - redis_a) / wall, 1),
            "state_redis_ops_per_s": round((b["redis_ops"] - a["redis_ops"]) / wall, 1),
            "mqtt_msgs_per_s": round((b["mqtt"] - a["mqtt"]) / wall, 1),
            "rss_mb": round(rss_mb, 1),
            "cpu_pct": round(100 * (b["cpu"] - a["cpu"]) / wall, 1),
            "cpu_us_per_agent_s": round(1e6 * (b["cpu"] - a["cpu"]) / wall / args.agents, 1),
            "rss_mb_per_agent": round(rss_mb / args.agents, 3),
            "unresponsive_agents": unresponsive,
            "llm_calls_per_agent_s": round(
                (b["llm_calls"] - a["llm_calls"]) / wall / args.agents, 4
            ),
            "llm_shed_per_s": round((b["llm_shed"] - a["llm_shed"]) / wall, 2),
            "services_cpu_pct": round(100 * (b["svc_cpu"] - a["svc_cpu"]) / wall, 1),
            "services_rss_mb": round(svc_rss, 1),
            "errors": int(b["errors"] - a["errors"]),
            "errors_by_kind": count_errors(errors_seen, t_a, t_b),
            "memories_per_agent": round(mem_b / max(1, args.agents), 1),
            "memories_per_agent_hour": round(
                (mem_b - mem_a) / max(1, args.agents) / (wall / 3600.0), 1
            ),
            "overrun_steps": int(b["overruns"] - a["overruns"]),
            "gc": gc_figures,
            "llm_calls_total": llm.get("accounting", {}).get("total", {}).get("calls")
            if llm
            else 0,
        }
        if web is not None:  # web view
            result["web"] = web
        return result


def run(args: argparse.Namespace) -> int:
    if args.agents < 1 or args.duration <= 0:
        print("--agents must be >= 1 and --duration > 0")
        return 2
    try:
        args.workers = worker_count(str(args.workers), args.agents)
    except ValueError:
        print(f"--workers {args.workers!r}: use a positive number or auto")
        return 2
    cluster = getattr(args, "cluster", None)
    if cluster is not None:
        try:
            args.cluster = parse_cluster(cluster)
        except ValueError as err:
            print(f"--cluster: {err}")
            return 2
        args.workers = max(2, args.workers)  # a cluster runs workers (at least two)
    since = Measurement()
    if args.workers > 1:
        from agent_runtime.app.cli.bench_workers import bench_workers

        cfg = _config(args.agents, args.llm_latency * 1000, args.heuristic, args.skill_seconds)
        warmup = args.warmup if args.warmup is not None else 5.0 + 0.1 * args.duration
        result = event_loop.run(bench_workers(args, cfg, warmup))
    else:
        result = event_loop.run(bench(args))
    emit(result, args, since)
    return 0
