"""Workers: two `piano worker` processes on loopback share a village as if on two machines,
and a worker that dies is restarted with its agents' memories intact."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
import yaml
from redis.asyncio import Redis

from agent_runtime.app.workers import WorkerPool, WorkerSpec, merge_metrics, parse_shard
from agent_runtime.bus import MqttBus, parse_mqtt_url, topics
from agent_runtime.bus.messages import Progress
from agent_runtime.services import ChildProcess, MosquittoBroker, RedisServer
from modules.memory.persistence import stream_prefix
from tests.core.helpers import wait_until_async

pytestmark = pytest.mark.services

NAMES = ["Ann", "Bob", "Cleo", "Dario", "Edda"]


def write_config(tmp_path: Path) -> Path:
    cfg = {
        "run": {"seed": 5, "time_scale": 0.3, "progress_every": 1, "duration": None},
        "world": {"kind": "none"},
        "llm": {"provider": "heuristic"},
        "agents": [{"name": n, "traits": ["You are friendly."]} for n in NAMES],
    }
    path = tmp_path / "village.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


class Reports:
    """The latest ``run/progress`` message of each shard, and an event when one arrives."""

    def __init__(self, bus: MqttBus, run_id: str) -> None:
        self.latest: dict[int, dict[str, Any]] = {}
        self.arrived = asyncio.Event()
        self._sub = bus.subscribe(topics.run(run_id, "progress"))
        self._sub.on_put = self._drain

    def _drain(self) -> None:
        while (msg := self._sub.get_nowait()) is not None:
            figures = cast(Progress, msg.payload).figures()
            self.latest[int(figures["shard"][0])] = figures
            self.arrived.set()

    async def until(self, cond: Any, limit: float, what: str) -> None:
        try:
            async with asyncio.timeout(limit):
                while not cond(self.latest):
                    self.arrived.clear()
                    await self.arrived.wait()
        except TimeoutError:
            raise AssertionError(f"timed out after {limit}s waiting for {what}") from None


@contextlib.asynccontextmanager
async def shared_services(tmp_path: Path, run_id: str) -> AsyncIterator[tuple[str, str, MqttBus]]:
    async with (
        RedisServer(tmp_path / "redis") as redis,
        MosquittoBroker(tmp_path / "mqtt") as broker,
    ):
        host, port = parse_mqtt_url(broker.url)
        async with MqttBus(host, port, run_id) as bus:
            yield redis.url, broker.url, bus


def test_parse_shard() -> None:
    assert parse_shard("1/3") == (1, 3)
    for bad in ("3/3", "-1/2", "1", "a/b", "0/0"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_merge_metrics_adds_counts_and_keeps_the_worst_lag() -> None:
    a = {"agents": 2, "module_steps": 10, "module_errors": 1, "events": {"decision": 4},
         "sched_lag_ms": {"p99": 3.0}, "social_graph": {"Ann": {}}}  # fmt: skip
    b = {"agents": 3, "module_steps": 5, "module_errors": 0, "events": {"decision": 1},
         "sched_lag_ms": {"p99": 7.0}, "social_graph": {"Bob": {}}}  # fmt: skip
    m = merge_metrics([a, b])
    assert m["agents"] == 5 and m["module_steps"] == 15 and m["module_errors"] == 1
    assert m["events"] == {"decision": 5}
    assert m["sched_lag_ms"] == {"p99": 7.0}
    assert set(m["social_graph"]) == {"Ann", "Bob"}


async def test_two_workers_on_loopback_share_one_village(tmp_path: Path, run_id: str) -> None:
    config = write_config(tmp_path)
    async with shared_services(tmp_path, run_id) as (redis_url, mqtt_url, bus):
        reports = Reports(bus, run_id)

        def worker(k: int) -> ChildProcess:  # what each of two machines would run
            argv = [sys.executable, "-m", "agent_runtime.app.cli.main", "worker", str(config),
                    "--shard", f"{k}/2", "--run-id", run_id, "--redis", redis_url,
                    "--mqtt", mqtt_url, "--run-dir", str(tmp_path / f"machine{k}")]  # fmt: skip
            return ChildProcess(
                f"worker{k}", argv, log_path=tmp_path / f"machine{k}.log", stop_timeout=30
            )

        children = [worker(0), worker(1)]
        async with contextlib.AsyncExitStack() as stack:
            for child in children:
                await stack.enter_async_context(child)
            await reports.until(
                lambda r: len(r) == 2 and all(p["decisions"] >= 2 for p in r.values()),
                60,
                "both workers deciding",
            )
            assert reports.latest[0]["agents"] == 3 and reports.latest[1]["agents"] == 2
            client: Redis = Redis.from_url(redis_url)
            try:

                async def all_remember() -> bool:  # every agent's memory is in the shared Redis
                    counts = [
                        await client.hlen(stream_prefix(run_id, n) + "records") for n in NAMES
                    ]
                    return all(c > 0 for c in counts)

                await wait_until_async(all_remember, 30, "memories of all five agents in Redis")
            finally:
                await client.aclose()
        for k, child in enumerate(children):
            assert child.proc is not None and child.proc.returncode == 0, (
                tmp_path / f"machine{k}.log"
            ).read_text()[-2000:]
    hosted = [json.loads((tmp_path / f"machine{k}" / "metrics.json").read_text()) for k in (0, 1)]
    assert [m["agents"] for m in hosted] == [3, 2]
    assert set(hosted[0]["goal_histories"]) | set(hosted[1]["goal_histories"]) == set(NAMES)
    assert not set(hosted[0]["goal_histories"]) & set(hosted[1]["goal_histories"])


async def test_a_dead_worker_restarts_and_its_agents_keep_their_memories(
    tmp_path: Path, run_id: str
) -> None:
    config = write_config(tmp_path)
    async with shared_services(tmp_path, run_id) as (redis_url, mqtt_url, bus):
        reports = Reports(bus, run_id)
        spec = WorkerSpec(
            config=config, run_id=run_id, run_dir=tmp_path / "run", count=2,
            redis_url=redis_url, mqtt_url=mqtt_url, world="none",
        )  # fmt: skip
        client: Redis = Redis.from_url(redis_url)
        told: list[tuple[int, float, int | None, str | None]] = []
        try:
            hook = lambda *a: told.append(a)  # noqa: E731
            async with WorkerPool(spec, max_backoff=1.0, on_restart=hook) as pool:
                await reports.until(
                    lambda r: len(r) == 2 and r[0]["decisions"] >= 2, 60, "worker 0 deciding"
                )
                key = stream_prefix(run_id, "Ann") + "records"  # Ann is agent 0: worker 0

                async def ann_remembers() -> bool:
                    return bool(await client.hlen(key))

                await wait_until_async(ann_remembers, 30, "Ann's first memories in Redis")
                before = await client.hlen(key)
                pid = pool.pids()[0]
                assert pid is not None
                os.kill(pid, signal.SIGKILL)
                async with asyncio.timeout(30):
                    await pool.restarted.wait()
                assert pool.pids()[0] not in (None, pid)
                reports.latest.pop(0, None)
                await reports.until(lambda r: 0 in r, 60, "the restarted worker reporting")
                after = await client.hlen(key)
                assert after >= before  # memories survived the kill and were reloaded
                assert pool.workers[0].exits == [-signal.SIGKILL]
            merged = pool.merge_into(tmp_path / "run")
        finally:
            await client.aclose()
    assert merged["workers"]["restarts"] == 1
    assert merged["workers"]["launcher"] == "process"
    # the owner was told: worker 0, the seconds it took (0.5 s backoff at least), its exit
    assert [(k, code, node) for k, _, code, node in told] == [(0, -signal.SIGKILL, None)]
    assert told[0][1] >= 0.5 and merged["workers"]["restart_s"]["0"] == [told[0][1]]
    assert merged["agents"] == 5  # both workers stopped cleanly and wrote their metrics
