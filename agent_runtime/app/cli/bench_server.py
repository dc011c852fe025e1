"""``piano bench server``: server CPU and memory with N simple walker bots.

Starts the embedded server on a fresh generated village (temporary world),
connects ``--bots`` walkers (one Node process, ``bots/server/bench/walker.js``),
then for ``--duration`` seconds samples the server process's CPU% and RSS once a
second (psutil) and counts kicks and disconnects. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.cli.bench_flags import seconds
from agent_runtime.services import ChildProcess
from agent_runtime.tasks import cancel_and_wait

if TYPE_CHECKING:
    from bots.server_host import EmbeddedServer


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "server", help="embedded server CPU/RSS and kicks with N walking bots", description=__doc__
    )
    p.add_argument("--bots", type=int, default=10, help="number of walker bots")
    p.add_argument("--duration", type=float, default=60.0, help="measured seconds after all joined")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--spacing", type=seconds, default=0.1, help="seconds between two bot logins (default 0.1)"
    )
    p.add_argument("--view-distance", type=int, default=6)
    p.add_argument(
        "--connect-timeout",
        type=seconds,
        default=120.0,
        help="seconds all bots may take to join (default 120)",
    )
    add_json_out(p)


def _summary(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "p95": None, "max": None}
    ordered = sorted(values)
    return {
        "mean": round(statistics.fmean(values), 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "max": round(ordered[-1], 1),
    }


async def _bench(args: argparse.Namespace) -> dict[str, Any]:
    from bots.node import BOTS_DIR, node_env, node_executable
    from bots.server_host import EmbeddedServer
    from bots.server_options import ServerOptions

    with tempfile.TemporaryDirectory(prefix="piano-bench-server-") as tmp:
        options = ServerOptions(
            seed=args.seed, max_players=max(60, args.bots + 5), view_distance=args.view_distance
        )
        server = EmbeddedServer(Path(tmp) / "world", options, log_path=Path(tmp) / "server.log")
        t0 = time.monotonic()
        async with server:
            start_seconds = time.monotonic() - t0
            assert server.pid is not None
            srv_proc = psutil.Process(server.pid)
            env = node_env()
            env["PIANO_NODE_MODULES"] = str(BOTS_DIR / "node_modules")
            walk = ChildProcess(
                "bench walker",
                [
                    str(node_executable()),
                    str(BOTS_DIR / "server" / "bench" / "walker.js"),
                    json.dumps(
                        {
                            "port": server.port,
                            "version": server.options.version,
                            "bots": args.bots,
                            "prefix": "walker",
                            "spacingMs": round(args.spacing * 1000),
                        }
                    ),
                ],
                env=env,
                capture=True,
                pipe_stdin=True,
                quiet_stderr=True,
                stop_timeout=10.0,
            )
            async with walk:
                assert walk.proc is not None
                return await _measure(args, server, srv_proc, walk.proc, start_seconds)


async def _measure(
    args: argparse.Namespace,
    server: EmbeddedServer,
    srv_proc: psutil.Process,
    walker: asyncio.subprocess.Process,
    start_seconds: float,
) -> dict[str, Any]:
    """Wait for the walker's bots to spawn, sample the server's CPU and memory for
    ``args.duration`` seconds, then close the walker's stdin (it disconnects its bots)."""
    events: list[dict[str, Any]] = []
    all_spawned = asyncio.Event()

    async def read() -> None:
        assert walker.stdout is not None
        async for line in walker.stdout:
            with contextlib.suppress(ValueError):
                e = json.loads(line)
                e["t"] = time.monotonic()
                events.append(e)
                if e.get("event") == "all_spawned":
                    all_spawned.set()

    reader = asyncio.create_task(read(), name="bench.walker.reader")
    walker_proc = psutil.Process(walker.pid)
    connect_seconds: float | None = None
    try:
        async with asyncio.timeout(args.connect_timeout):
            await all_spawned.wait()
        connect_seconds = next(e["seconds"] for e in events if e["event"] == "all_spawned")
    except TimeoutError:
        pass
    srv_proc.cpu_percent(None)
    walker_proc.cpu_percent(None)
    cpu: list[float] = []
    rss: list[float] = []
    wcpu: list[float] = []
    t_measure = time.monotonic()
    while time.monotonic() - t_measure < args.duration:
        await asyncio.sleep(1.0)
        cpu.append(srv_proc.cpu_percent(None))
        rss.append(srv_proc.memory_info().rss / 2**20)
        wcpu.append(walker_proc.cpu_percent(None))
    measured = time.monotonic() - t_measure
    in_window = [e for e in events if e["t"] >= t_measure]
    kicks = [e for e in events if e.get("event") == "kicked"]
    ends = [e for e in events if e.get("event") == "end"]
    result = {
        "bench": "server",
        "bots": args.bots,
        "spawned": sum(1 for e in events if e.get("event") == "spawned"),
        "server_start_seconds": round(start_seconds, 2),
        "world_gen_ms": server.info.get("worldGenMs"),
        "connect_all_seconds": connect_seconds,
        "measured_seconds": round(measured, 1),
        "server_cpu_percent": _summary(cpu),
        "server_rss_mb": _summary(rss),
        "walker_process_cpu_percent": _summary(wcpu),
        "kicks": len(kicks),
        "kicks_during_measurement": sum(1 for e in in_window if e.get("event") == "kicked"),
        "disconnects": len(ends),
        "kick_reasons": sorted({e.get("reason", "") for e in kicks})[:5],
    }
    if walker.stdin is not None:
        walker.stdin.close()
    # a walker that does not end within 10 s is stopped by its ChildProcess (TERM, then KILL)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):
            await walker.wait()
    await cancel_and_wait(reader)
    return result


def run(args: argparse.Namespace) -> int:
    if args.bots < 1 or args.duration <= 0:
        print(json.dumps({"error": "--bots must be >= 1 and --duration > 0"}))
        return 2
    since = Measurement()
    emit(asyncio.run(_bench(args)), args, since)
    return 0
