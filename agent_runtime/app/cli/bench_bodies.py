"""``piano bench bodies``: N mineflayer bodies on the embedded server, driven through JSPyBridge.

Every body is observed at ``--rate`` snapshots per second (one bridge call each)
while it runs a loop of skills (walk to a random spot within 12 blocks of the
village square; every ``--chat-every`` walks, say something, which every other
body hears). After a warm-up, for ``--duration`` seconds, it measures:
observation snapshots per second achieved vs requested, bridge call latency
p50/p99 (observe calls, timed around the awaited call), skills completed and
failed (with the most common reasons), CPU and RSS of this Python process, of
the body Node processes and of the server, kicks and disconnects. Prints one
JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.cli.bench_flags import add_bots_per_process
from agent_runtime.interfaces import BotSpec
from agent_runtime.world import SkillCall

BOT_PREFIX = "bench"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "bodies", help="observation/skill throughput of N bodies on the embedded server"
    )
    p.add_argument("--bots", type=int, default=10, help="number of bodies")
    p.add_argument("--duration", type=float, default=30.0, help="measured seconds (after warm-up)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    p.add_argument(
        "--rate", type=float, default=2.0, help="observation snapshots per second per body"
    )
    add_bots_per_process(p, default=0)
    p.add_argument("--no-skills", action="store_true", help="observe only (bodies stand still)")
    p.add_argument(
        "--chat-every",
        type=int,
        default=3,
        help="each body says something after every K walks (0: never); chat fans out to every body",
    )
    p.add_argument("--port", type=int, default=None, help="use a running server on this port")
    p.add_argument(
        "--transport",
        choices=["jspybridge", "stdio"],
        default="jspybridge",
        help="JSPyBridge (default) or the JSON-lines Node sidecar",
    )
    p.add_argument("--seed", type=int, default=1)
    add_json_out(p)


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


class _Usage:
    """CPU seconds and RSS of a changing set of processes."""

    def __init__(self) -> None:
        self.procs: dict[int, psutil.Process] = {}
        self.rss_max = 0.0

    def track(self, pids: list[int]) -> None:
        for pid in pids:
            if pid not in self.procs:
                with contextlib.suppress(psutil.Error):
                    self.procs[pid] = psutil.Process(pid)

    def cpu(self) -> float:
        total = 0.0
        for p in self.procs.values():
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def rss_mb(self) -> float:
        total = 0.0
        for p in self.procs.values():
            with contextlib.suppress(psutil.Error):
                total += p.memory_info().rss
        mb = total / 2**20
        self.rss_max = max(self.rss_max, mb)
        return mb


class _Counters:
    def __init__(self) -> None:
        self.measuring = False
        self.observations = 0
        self.late = 0
        self.observe_errors = 0
        self.latencies: list[float] = []
        self.skills_ok = 0
        self.skills_failed = 0
        self.reasons: collections.Counter[str] = collections.Counter()
        self.events: collections.Counter[str] = collections.Counter()


async def _observe_loop(body: Any, rate: float, phase: float, c: _Counters) -> None:
    period = 1.0 / rate
    loop = asyncio.get_running_loop()
    next_at = loop.time() + phase * period  # spread the bodies' phases
    while True:
        delay = next_at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        elif c.measuring and -delay > period:
            c.late += int(-delay // period)
            next_at = loop.time()
        next_at += period
        t0 = time.perf_counter()
        try:
            await body.observe()
        except Exception:  # counted; the bench goes on
            if c.measuring:
                c.observe_errors += 1
            continue
        if c.measuring:
            c.observations += 1
            c.latencies.append(time.perf_counter() - t0)


async def _skill_loop(body: Any, rng: random.Random, chat_every: int, c: _Counters) -> None:
    n = 0
    while True:
        n += 1
        x, z = rng.uniform(-12, 12), rng.uniform(-12, 12)
        calls = [SkillCall(skill="go_to", args={"x": x, "z": z, "range": 2.0}, timeout=30)]
        if chat_every and n % chat_every == 0:
            calls.append(SkillCall(skill="chat", args={"message": f"at {x:.0f} {z:.0f}"}))
        for call in calls:
            outcome = await body.run_skill(call)
            if c.measuring:
                if outcome.success:
                    c.skills_ok += 1
                else:
                    c.skills_failed += 1
                    c.reasons[outcome.reason[:60]] += 1


async def _event_loop(body: Any, c: _Counters) -> None:
    async for event in body.events():
        if c.measuring:
            c.events[event.kind] += 1


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    from bots.server_host import EmbeddedServer
    from bots.server_options import ServerOptions
    from bots.transport import HostTransport, JSPyBridgeTransport, StdioTransport

    rng = random.Random(args.seed)
    me = psutil.Process()
    result: dict[str, Any] = {
        "bench": "bodies",
        "transport": args.transport,
        "bots": args.bots,
        "bots_per_process": args.bots_per_process,
        "duration_s": args.duration,
        "rate_per_bot": args.rate,
        "skills": not args.no_skills,
        "chat_every": args.chat_every,
    }
    with tempfile.TemporaryDirectory(prefix="piano-bench-bodies-") as tmp:
        server: EmbeddedServer | None = None
        if args.port is None:
            server = EmbeddedServer(
                Path(tmp) / "world",
                ServerOptions(max_players=max(60, args.bots + 5)),
                log_path=Path(tmp) / "server.log",
            )
            await server.__aenter__()
        port = server.port if server else args.port
        try:
            kind: type[HostTransport] = (
                StdioTransport if args.transport == "stdio" else JSPyBridgeTransport
            )
            transport = kind(bots_per_process=args.bots_per_process, spawn_timeout=60.0)
            async with transport:
                gate = asyncio.Semaphore(5)

                async def join(i: int) -> Any:
                    async with gate:
                        return await transport.connect(BotSpec(f"{BOT_PREFIX}{i}", port=port))

                t0 = time.perf_counter()
                bodies = await asyncio.gather(*(join(i) for i in range(args.bots)))
                result["connect_all_s"] = round(time.perf_counter() - t0, 2)
                c = _Counters()
                tasks: list[asyncio.Task[None]] = []
                for b in bodies:
                    observe = _observe_loop(b, args.rate, rng.random(), c)
                    tasks.append(asyncio.create_task(observe, name=f"bench[{b.name}].observe"))
                    tasks.append(
                        asyncio.create_task(_event_loop(b, c), name=f"bench[{b.name}].events")
                    )
                    if not args.no_skills:
                        seeded = random.Random(rng.random())
                        skills = _skill_loop(b, seeded, args.chat_every, c)
                        tasks.append(asyncio.create_task(skills, name=f"bench[{b.name}].skills"))
                try:
                    await asyncio.sleep(args.warmup)
                    info = await transport.info()
                    node = _Usage()
                    node.track([info["pid"], *info["worker_pids"]])
                    srv = _Usage()
                    if server is not None and server.pid is not None:
                        srv.track([server.pid])
                    py = _Usage()
                    py.track([me.pid])
                    cpu0 = (py.cpu(), node.cpu(), srv.cpu())
                    calls0 = transport.calls
                    c.measuring = True
                    start = time.perf_counter()
                    end = start + args.duration
                    while (now := time.perf_counter()) < end:
                        await asyncio.sleep(min(1.0, end - now))
                        py.rss_mb()
                        node.rss_mb()
                        srv.rss_mb()
                    c.measuring = False
                    elapsed = time.perf_counter() - start
                    cpu1 = (py.cpu(), node.cpu(), srv.cpu())
                finally:
                    for t in tasks:
                        t.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                lat_ms = [v * 1000 for v in c.latencies]
                requested = args.bots * args.rate
                result.update(
                    {
                        "observations_per_s_requested": round(requested, 1),
                        "observations_per_s_achieved": round(c.observations / elapsed, 1),
                        "observation_ticks_missed": c.late,
                        "observe_errors": c.observe_errors,
                        "bridge_calls_per_s": round((transport.calls - calls0) / elapsed, 1),
                        "observe_latency_ms": {
                            "p50": _round(_percentile(lat_ms, 50)),
                            "p99": _round(_percentile(lat_ms, 99)),
                            "max": _round(max(lat_ms) if lat_ms else None),
                        },
                        "skills_completed": c.skills_ok,
                        "skills_failed": c.skills_failed,
                        "skill_failure_reasons": dict(c.reasons.most_common(5)),
                        "events": dict(c.events),
                        "kicks": c.events.get("kicked", 0),
                        "disconnects": c.events.get("disconnected", 0),
                        "events_dropped_python": sum(b.dropped_events for b in bodies),
                        "events_dropped_node": info.get("dropped", 0),
                        "node_processes": 1 + len(info["worker_pids"]),
                        "cpu_percent": {
                            "python": round((cpu1[0] - cpu0[0]) / elapsed * 100, 1),
                            "node_bodies": round((cpu1[1] - cpu0[1]) / elapsed * 100, 1),
                            "server": round((cpu1[2] - cpu0[2]) / elapsed * 100, 1),
                        },
                        "rss_mb_max": {
                            "python": round(py.rss_max, 1),
                            "node_bodies": round(node.rss_max, 1),
                            "server": round(srv.rss_max, 1),
                        },
                        "measured_s": round(elapsed, 2),
                    }
                )
        finally:
            if server is not None:
                await server.__aexit__(None, None, None)
    return result


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 3)


def run(args: argparse.Namespace) -> int:
    if args.bots < 1 or args.duration <= 0 or args.rate <= 0:
        raise SystemExit("--bots, --duration and --rate must be positive")
    since = Measurement()
    emit(asyncio.run(bench(args)), args, since)
    return 0
