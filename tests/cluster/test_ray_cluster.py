"""A village on a real 2-node Ray cluster (both nodes on 127.0.0.1).

The coordinator (Redis, broker, no world: world shards as actors are a later step) runs its
workers as Ray actors spread over both nodes; one node is then removed. The worker it held
must run again (``worker_restarted``, within 30 s), no agent may have lost a memory, and
after the stop no process of the run may be left (the workers' ``piano worker`` children,
old and new, and their actors' processes).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import ray  # the `cluster` extra (`make install` installs it)
import yaml
from ray import cluster_utils
from ray._private import ray_constants
from redis.asyncio import Redis

from agent_runtime.app.coordinator import coordinate, village_agents
from agent_runtime.app.launchers import ClusterSpec
from agent_runtime.app.village import VillageOptions
from agent_runtime.config.loader import load_config
from modules.memory.persistence import stream_prefix
from tests.core.helpers import wait_until, wait_until_async

pytestmark = pytest.mark.services

AGENTS = 20


@pytest.fixture
def two_nodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A Ray head and one more node, 2 CPUs each, on loopback.

    Ray turns a loopback address given to ``ray.init`` into the machine's own address
    unless clusters are off for this platform (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``,
    read once at import): that switch, for this process, keeps the driver on 127.0.0.1."""
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
    loopback: dict[str, Any] = {"num_cpus": 2, "node_ip_address": "127.0.0.1"}
    cluster = cluster_utils.Cluster(initialize_head=True, head_node_args=loopback)
    try:
        cluster.add_node(**loopback)
        cluster.wait_for_nodes(timeout=60)
        yield cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()  # type: ignore[no-untyped-call]


def write_config(tmp_path: Path) -> Path:
    cfg = {
        "run": {"seed": 11, "time_scale": 0.3, "progress_every": 1, "duration": None,
                "embedder": "hashing"},
        "world": {"kind": "none"},
        "llm": {"provider": "heuristic"},
        "agent_templates": [{"count": AGENTS, "random_personality": True}],
    }  # fmt: skip
    path = tmp_path / "village.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def gone(pid: int) -> bool:
    """No such process, or only its zombie (its parent died: nothing runs)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def memory_counts(client: Redis, run_id: str, names: list[str]) -> dict[str, int]:
    return {n: int(await client.hlen(stream_prefix(run_id, n) + "records")) for n in names}


async def test_a_village_survives_losing_a_ray_node(
    tmp_path: Path, run_id: str, two_nodes: Any
) -> None:
    began = time.monotonic()
    config = write_config(tmp_path)
    cfg = load_config(str(config))
    run_dir = tmp_path / "run"
    opts = VillageOptions(run_dir=run_dir, run_id=run_id)
    cluster = ClusterSpec("ray", two_nodes.address)
    restarts: list[dict[str, Any]] = []
    child_pids: set[int] = set()
    actor_pids: set[int] = set()

    async with coordinate(cfg, opts, workers=2, config=config, cluster=cluster) as coord:
        village = coord.village
        village.events.add_listener(
            lambda r: restarts.append(r) if r.get("type") == "worker_restarted" else None
        )
        assert village.world is not None
        names = [a.name for a in village_agents(cfg, village.world, None)]
        assert len(names) == AGENTS
        assert await coord.ready(village_agents(cfg, village.world, None), within=60)
        pool = coord.pool
        assert pool is not None and pool.launcher.name == "ray"
        nodes = pool.nodes()
        assert two_nodes.address.startswith("127.0.0.1:")
        assert len(set(nodes)) == 2, f"both workers on one node: {nodes}"
        child_pids.update(p for p in pool.pids() if p is not None)
        # at the coordinator's niceness, not at Ray's for its workers (15 by default)
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        assert [w.handle.info["nice"] for w in pool.workers] == [nice, nice]  # type: ignore[union-attr]
        actor_pids.update(w.handle.actor_pid for w in pool.workers)  # type: ignore[union-attr]

        assert village.redis_url is not None
        client: Redis = Redis.from_url(village.redis_url)
        try:

            async def all_remember() -> bool:
                counts = await memory_counts(client, run_id, names)
                return all(c >= 2 for c in counts.values())

            await wait_until_async(all_remember, 60, "memories of all agents in Redis")
            # silent_s counts from a worker's last progress report: have one from each (the
            # statuses that made the village ready may come before the first report)
            await wait_until(lambda: len(coord.reported_at) >= 2, 30, "a report from each worker")
            # the worker on the node that is not the head goes away with its node
            head_id = two_nodes.head_node.node_id
            lost_k = next(k for k, n in enumerate(nodes) if n != head_id)
            lost_pid = pool.pids()[lost_k]
            assert lost_pid is not None
            victim = next(n for n in two_nodes.worker_nodes if n.node_id == nodes[lost_k])
            # the counts just before the node goes: the lost worker's agents write nothing
            # from here on until it runs again
            before = await memory_counts(client, run_id, names)
            pool.restarted.clear()
            removed = time.monotonic()
            two_nodes.remove_node(victim)
            async with asyncio.timeout(30):
                await pool.restarted.wait()
            back_s = time.monotonic() - removed
            assert pool.nodes()[lost_k] == head_id  # Ray brought it back on the other node
            new_pid = pool.pids()[lost_k]
            assert new_pid is not None and new_pid != lost_pid
            child_pids.add(new_pid)
            actor_pids.add(pool.workers[lost_k].handle.actor_pid)  # type: ignore[union-attr]
            coord.latest.clear()  # its agents report again from the new incarnation
            await wait_until(lambda: coord._up(AGENTS), 60, "all agents running again")
            after = await memory_counts(client, run_id, names)
        finally:
            await client.aclose()

    lost = {n: (before[n], after[n]) for n in names if after[n] < before[n]}
    assert not lost, f"memories lost: {lost}"
    assert [r["worker"] for r in restarts] == [lost_k]
    assert restarts[0]["exit_code"] is None  # lost with its node, not an exit of its own
    assert 0 < restarts[0]["seconds"] < 30
    assert restarts[0]["silent_s"] is not None and restarts[0]["silent_s"] < 30
    logged = [
        json.loads(line)
        for line in (run_dir / "events.jsonl").read_text().splitlines()
        if '"worker_restarted"' in line
    ]
    assert len(logged) == 1 and logged[0]["worker"] == lost_k
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["workers"]["launcher"] == "ray" and metrics["workers"]["restarts"] == 1

    async def nothing_left() -> bool:
        return all(gone(p) for p in child_pids | actor_pids)

    await wait_until_async(nothing_left, 30, "every process of the run gone")
    leftover = [
        p.pid
        for p in psutil.process_iter(["cmdline"])
        if run_id in " ".join(p.info["cmdline"] or []) and p.status() != psutil.STATUS_ZOMBIE
    ]
    assert not leftover, f"processes of the run still running: {leftover}"
    print(json.dumps({"test_s": round(time.monotonic() - began, 1), "node_to_back_s":
                      round(back_s, 2), "restart_s": restarts[0]["seconds"],
                      "silent_s": restarts[0]["silent_s"]}))  # fmt: skip
