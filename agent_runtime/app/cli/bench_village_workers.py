"""``piano bench village --workers N [--cluster ray[...]]``: the bench's village with its
agents on N workers, through the path ``piano run --workers/--cluster`` takes
(:func:`agent_runtime.app.coordinator.coordinate`: the coordinator owns Redis, the broker and
the world shards; the workers are child processes, or Ray actors on a cluster, whose shard
servers are then actors too).

Figures come from the workers: decisions and skills per agent-minute from their
``run/progress`` records (each worker's growth over its own clock between its first and last
record of the measured window, summed), unresponsive agents at the end and at the peak of
the coordinator's progress records, module errors in the window, kicks and disconnects from
their bodies' ``body_event`` records stamped in the window, scheduling lag p50/p90/p99 from
each worker's ``metrics.json`` (the worst worker's; lags of each worker's first second after
its agents run dropped), restarts of workers (the pool's) and of shard servers
(``service_restarted``), and the whole machine's CPU over the window (on a 2-core machine
shared by every process of the run, Ray's included) and, as the one-process bench reports
them, the CPU and memory of the run's own processes (:mod:`.run_usage`).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
import yaml

from agent_runtime.app.cli.bench_counts import count_errors
from agent_runtime.app.cli.bench_workers import _delta, _rates, worker_events
from agent_runtime.app.cli.run_usage import RunUsage
from agent_runtime.app.launchers import ClusterSpec
from agent_runtime.clock import wall_time
from agent_runtime.config.models import VillageConfig

__all__ = [
    "bench_village_workers",
    "body_events",
    "body_reasons",
    "body_stalls",
    "machine_busy_seconds",
    "server_stalls",
]

log = logging.getLogger(__name__)

#: each worker forgets the lags of this many seconds after its agents run
MEASURE_AFTER_S = 1.0


def body_events(records: Any, kind: str, since: float, until: float) -> int:
    """``body_event`` records of ``kind`` (kicked, disconnected, ...) stamped in [since, until]."""
    return sum(
        1
        for r in records
        if r.get("type") == "body_event"
        and r.get("kind") == kind
        and since <= float(r.get("t", 0)) <= until
    )


def body_reasons(records: Any, kind: str, since: float, until: float) -> dict[str, int]:
    """How many ``body_event`` records of ``kind`` in [since, until] gave each reason (the
    server's kick message or the connection's end, cut to 120 characters), most first."""
    counts: dict[str, int] = {}
    for r in records:
        if r.get("type") != "body_event" or r.get("kind") != kind:
            continue
        if not since <= float(r.get("t", 0)) <= until:
            continue
        data = r.get("data")
        reason = str(data.get("reason", "?")) if isinstance(data, dict) else "?"
        counts[reason[:120]] = counts.get(reason[:120], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def body_stalls(records: Any) -> dict[str, Any]:
    """The bodies' own view of their connections that ended: seconds since their last packet
    from the server and KB they had queued to it (``disconnected`` records, whole run)."""
    seen = [
        r["data"]
        for r in records
        if r.get("type") == "body_event"
        and r.get("kind") == "disconnected"
        and isinstance(r.get("data"), dict)
        and "last_packet_s" in r["data"]
    ]
    if not seen:
        return {"count": 0}
    last = sorted(float(d["last_packet_s"]) for d in seen)
    return {
        "count": len(seen),
        "last_packet_s_median": last[len(last) // 2],
        "last_packet_s_max": last[-1],
        "queued_kb_max": max(int(d.get("queued_kb", 0)) for d in seen),
    }


def server_stalls(run_dir: Path, keep: int = 8) -> dict[str, Any]:
    """The shard servers' ``[piano] stall:`` lines (bots/server/plugins/stalls.js): players
    timed out and event-loop delays over a second; the count and the first ``keep``."""
    lines: list[str] = []
    for log_file in sorted((run_dir / "logs").glob("server-*.log")):
        with log_file.open(encoding="utf-8", errors="replace") as f:
            lines += [
                f"{log_file.stem}: {ln.strip()[len('[piano] stall: ') :]}"
                for ln in f
                if ln.startswith("[piano] stall: ")
            ]
    return {"count": len(lines), "first": lines[:keep]}


def machine_busy_seconds() -> float:
    """CPU seconds every process on the machine has used so far (all cores)."""
    t = psutil.cpu_times()
    return float(t.user + t.nice + t.system + getattr(t, "irq", 0.0) + getattr(t, "softirq", 0.0))


async def _players(world: Any) -> dict[str, int | None]:
    """Players on each shard's server (the workers' bodies), from its admin API."""
    out: dict[str, int | None] = {}
    for shard in world.router.shards if world.router is not None else []:
        try:
            async with asyncio.timeout(10):
                out[shard.name] = len(await shard.world.admin.players())
        except Exception:  # a figure of the report, not the run
            log.warning("players of %s: no answer", shard.name, exc_info=True)
            out[shard.name] = None
    return out


async def _refusals(world: Any) -> dict[str, Any]:
    """What each shard's server refused the players (GET /refusals: moves, clicks, names...):
    the bench's players are our bodies, so anything but 0 is a false alarm. ``None`` for a
    server without the count."""
    out: dict[str, Any] = {}
    for shard in world.router.shards if world.router is not None else []:
        try:
            async with asyncio.timeout(10):
                out[shard.name] = await shard.world.admin.refusals()
        except Exception:  # a figure of the report, not the run
            log.warning("refusals of %s: no answer", shard.name, exc_info=True)
            out[shard.name] = None
    return out


def _roots(coord: Any) -> list[int]:
    """This process, the workers' and the shard servers' pids (wherever they run)."""
    roots = [os.getpid()]
    if coord.pool is not None:
        roots += [p for p in coord.pool.pids() if p]
    router = coord.village.world.router if coord.village.world is not None else None
    for shard in router.shards if router is not None else []:
        pid = getattr(shard.world.server, "pid", None)
        if isinstance(pid, int):
            roots.append(pid)
    return roots


async def bench_village_workers(
    args: argparse.Namespace, cfg: VillageConfig, cluster: ClusterSpec | None
) -> dict[str, Any]:
    from agent_runtime.app.coordinator import coordinate, village_agents
    from agent_runtime.app.village import VillageOptions

    peak_unresponsive = 0
    measuring = False

    def progress(info: dict[str, Any]) -> None:
        nonlocal peak_unresponsive
        if measuring:
            peak_unresponsive = max(peak_unresponsive, int(info.get("unresponsive", 0)))

    with tempfile.TemporaryDirectory(prefix="piano-bench-village-") as tmp:
        config = Path(tmp) / "bench.yaml"  # the file every worker loads
        data = cfg.model_dump(mode="json", exclude_defaults=True)
        data.setdefault("run", {})["duration"] = None  # the workers run until stopped
        config.write_text(yaml.safe_dump(data, sort_keys=False))
        run_dir = Path(tmp) / "run"
        opts = VillageOptions(run_dir=run_dir, run_id="bench-village")
        opts.web_port = None
        t0 = time.monotonic()
        async with coordinate(
            cfg, opts, workers=args.workers, config=config, cluster=cluster,
            progress=progress, measure_after=MEASURE_AFTER_S,
        ) as coord:  # fmt: skip
            village = coord.village
            assert village.world is not None
            agents = village_agents(cfg, village.world, None)
            await coord.ready(agents, within=180 + 3 * len(agents))
            joined_s = time.monotonic() - t0
            async with asyncio.timeout(60):  # the window starts at every worker's record
                while len(coord.latest) < coord.workers:
                    coord._arrived.clear()
                    await coord._arrived.wait()
            first = copy.deepcopy(coord.latest)
            usage = RunUsage(_roots(coord))
            a_wall, a_t, a_busy = wall_time(), time.monotonic(), machine_busy_seconds()
            measuring = True
            reason = await village.run(args.duration)
            measuring = False
            last = copy.deepcopy(coord.latest)
            b_wall, b_t, b_busy = wall_time(), time.monotonic(), machine_busy_seconds()
            tree = usage.result(_roots(coord))
            unresponsive = sum(int(p.get("unresponsive", 0)) for p in last.values())
            server_restarts = village.events.counts.get("service_restarted", 0)
            bots = await _players(village.world)
            refusals = await _refusals(village.world)
        merged = coord.metrics
        records = list(worker_events(run_dir))
        stalls = server_stalls(run_dir)
    wall = b_t - a_t
    dec, skills = _rates(first, last, "decisions", "skills")
    lag = merged.get("sched_lag_ms") or {}
    n = len(agents)
    return {
        "bench": "village",
        "launcher": merged["workers"]["launcher"],
        "cluster": str(cluster) if cluster is not None else None,
        "ray_nodes": getattr(args, "ray_nodes", None) if cluster is not None else None,
        "workers": args.workers,
        "agents": n,
        "shards": args.shards,
        "bots_per_shard": bots,  # players on each server at the end
        "join_all_seconds": round(joined_s, 1),
        "measured_seconds": round(wall, 1),
        "stop_reason": reason,
        "decisions": _delta(first, last, "decisions"),
        "decisions_per_agent_minute": round(60 * dec / n, 3),
        "skills_per_agent_minute": round(60 * skills / n, 3),
        "sched_lag_ms": {k: lag.get(k) for k in ("p50", "p90", "p99")},  # the worst worker's
        "sched_lag_ms_per_worker": [w.get("sched_lag_ms") for w in merged.get("per_worker", [])],
        "refusals": refusals,  # per shard: what the server refused our bodies (the whole run)
        "kicks": body_events(records, "kicked", a_wall, b_wall),
        "kicks_whole_run": body_events(records, "kicked", 0.0, float("inf")),
        "disconnects": body_events(records, "disconnected", a_wall, b_wall),
        "kick_reasons": body_reasons(records, "kicked", 0.0, float("inf")),  # the whole run
        "disconnect_reasons": body_reasons(records, "disconnected", 0.0, float("inf")),
        "disconnect_stalls": body_stalls(records),  # the bodies' side of those
        "server_stalls": stalls,  # the servers' side: timeouts and event-loop delays
        "unresponsive_agents_end": unresponsive,
        "unresponsive_agents_peak": max(peak_unresponsive, unresponsive),
        "errors": _delta(first, last, "errors"),
        "errors_by_kind": count_errors(records, a_wall, b_wall),
        "worker_restarts": merged["workers"]["restarts"],
        "server_restarts": server_restarts,
        # every process on the machine (the run's and anything beside it), % of one core
        "machine_cpu_percent": round(100 * (b_busy - a_busy) / wall, 1),
        "machine_cores": os.cpu_count(),
        # the run's processes (this one, the workers, the shard servers and all they
        # started; not Ray's own), CPU as % of one core, as the one-process bench reports
        "all_processes": tree,
        "cpu_cores_per_agent": round(float(tree["cpu_percent"]) / 100 / n, 4),
        "rss_mb_per_agent": round(float(tree["rss_mb"]) / n, 2),
    }
