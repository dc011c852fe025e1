"""An embodied village on a real 2-node Ray cluster (both nodes on 127.0.0.1): 20 agents
over 2 embedded world shards, each shard's flying-squid server an actor, 2 workers (actors
too, hosting the agents and their bodies, each on the node of the shard its bodies live on).

With actors on both nodes and every agent acting in the world, the node that is not the
head is removed. The shard server and the worker it held must run again on the head
(``service_restarted`` for the shard, ``worker_restarted`` for the worker, each within 30 s
of the removal), no agent may have lost a memory, every agent's body must be back on its
shard's server, and after the stop no process of the run may be left.
"""

from __future__ import annotations

import asyncio
import json
import logging
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
from tests.cluster.test_ray_cluster import gone, memory_counts
from tests.core.helpers import wait_until, wait_until_async

pytestmark = pytest.mark.services

AGENTS = 20

log = logging.getLogger(__name__)


@pytest.fixture
def two_nodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A Ray head and one more node on loopback, 4 logical CPUs each: after the removal the
    head holds both shards' servers and both workers (1 CPU each)."""
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
    loopback: dict[str, Any] = {"num_cpus": 4, "node_ip_address": "127.0.0.1"}
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
        "world": {"kind": "embedded", "bots_per_process": 10, "shards": [
            {"name": "west", "region": {"x_min": -400, "x_max": 0, "z_min": -200, "z_max": 200},
             "max_bots": AGENTS},
            {"name": "east", "region": {"x_min": 0, "x_max": 400, "z_min": -200, "z_max": 200},
             "max_bots": AGENTS},
        ]},
        "llm": {"provider": "heuristic"},
        "agent_templates": [{"count": AGENTS, "random_personality": True}],
    }  # fmt: skip
    path = tmp_path / "village.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def run_processes(marks: list[str]) -> list[int]:
    """Live processes whose command line names the run (its id or its folder)."""
    out = []
    for p in psutil.process_iter(["cmdline"]):
        with_marks = " ".join(p.info["cmdline"] or [])
        try:
            if any(m in with_marks for m in marks) and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p.pid)
        except psutil.NoSuchProcess:
            continue
    return out


def family(pids: set[int]) -> set[int]:
    """``pids`` and every descendant of theirs that runs now."""
    out = set(pids)
    for pid in pids:
        try:
            out.update(c.pid for c in psutil.Process(pid).children(recursive=True))
        except psutil.NoSuchProcess:
            continue
    return out


def ours(pool: Any, server_actors: list[int | None]) -> set[int]:
    """The workers' processes, their actors' and the shard servers' actors'."""
    found = [*pool.pids(), *(w.handle.actor_pid for w in pool.workers), *server_actors]
    return {p for p in found if p is not None}


@pytest.mark.timeout(300)
async def test_world_shards_come_back_when_their_ray_node_goes(
    tmp_path: Path, run_id: str, two_nodes: Any
) -> None:
    began = time.monotonic()
    config = write_config(tmp_path)
    cfg = load_config(str(config))
    run_dir = tmp_path / "run"
    opts = VillageOptions(run_dir=run_dir, run_id=run_id)
    cluster = ClusterSpec("ray", two_nodes.address)
    records: list[dict[str, Any]] = []
    shard_back, worker_back = asyncio.Event(), asyncio.Event()
    pids: set[int] = set()
    marks = [run_id, str(tmp_path)]

    def listen(r: dict[str, Any]) -> None:
        if r.get("type") == "service_restarted" and r.get("shard"):
            records.append(r)
            shard_back.set()
        elif r.get("type") == "worker_restarted":
            records.append(r)
            worker_back.set()

    async with coordinate(cfg, opts, workers=2, config=config, cluster=cluster) as coord:
        village = coord.village
        village.events.add_listener(listen)
        assert village.world is not None and village.world.router is not None
        agents = village_agents(cfg, village.world, None)
        names = [a.name for a in agents]
        assert await coord.ready(agents, within=120)
        log.warning("ready after %.1f s", time.monotonic() - began)
        pool = coord.pool
        assert pool is not None and pool.launcher.name == "ray"
        shards = village.world.router.shards
        servers = {s.name: s.world.server for s in shards}
        shard_nodes = {name: srv.node for name, srv in servers.items()}
        worker_nodes = pool.nodes()
        head_id = two_nodes.head_node.node_id
        both = {head_id, *(n.node_id for n in two_nodes.worker_nodes)}
        assert set(worker_nodes) == both, f"workers not on both nodes: {worker_nodes}"
        assert set(shard_nodes.values()) == both, f"shards not on both nodes: {shard_nodes}"
        # worker k hosts the agents of shard k (index k mod 2): it runs on that shard's node
        assert worker_nodes == [servers[s.name].node for s in shards]
        lost_shard = next(n for n, node in shard_nodes.items() if node != head_id)
        lost_k = next(k for k, node in enumerate(worker_nodes) if node != head_id)
        addresses = {name: srv.address for name, srv in servers.items()}

        async def in_world() -> set[str]:
            seen: set[str] = set()
            for s in shards:
                with_names = await s.world.admin.players()
                seen.update(str(p["username"]) for p in with_names)
            return seen

        assert village.redis_url is not None
        client: Redis = Redis.from_url(village.redis_url)
        try:

            async def all_remember() -> bool:
                counts = await memory_counts(client, run_id, names)
                return all(c >= 2 for c in counts.values())

            async def all_in_world() -> bool:
                return set(names) <= await in_world()

            await wait_until_async(all_in_world, 60, "every body in the world")
            await wait_until_async(all_remember, 60, "memories of all agents in Redis")
            await wait_until(lambda: len(coord.reported_at) >= 2, 30, "a report from each worker")
            # the village acts in the world before the node goes: a skill for every agent
            await wait_until(
                lambda: coord.aggregate()["skills"] >= AGENTS, 90, "skills of the village"
            )
            running_s = time.monotonic() - began
            log.warning("acting after %.1f s: %s", running_s, coord.aggregate())
            pids |= family(ours(pool, [srv.actor_pid for srv in servers.values()]))
            pids.update(run_processes(marks))
            before = await memory_counts(client, run_id, names)
            victim = next(n for n in two_nodes.worker_nodes if n.node_id != head_id)
            removed = time.monotonic()
            two_nodes.remove_node(victim)
            async with asyncio.timeout(30):
                await shard_back.wait()
            shard_s = time.monotonic() - removed
            log.warning("shard back %.1f s after the removal", shard_s)
            async with asyncio.timeout(30):
                await worker_back.wait()
            worker_s = time.monotonic() - removed
            log.warning("worker back %.1f s after the removal", worker_s)
            back = village.world.router.shards
            server = next(s.world.server for s in back if s.name == lost_shard)
            assert server.node == head_id  # Ray brought the shard back on the other node
            assert server.address == addresses[lost_shard]  # on the same address
            assert pool.nodes()[lost_k] == head_id
            coord.latest.clear()  # the restarted worker's agents report again
            await wait_until(lambda: coord._up(AGENTS), 60, "all agents running again")
            await wait_until_async(all_in_world, 60, "every body back in the world")
            log.warning("bodies back %.1f s after the removal", time.monotonic() - removed)
            after = await memory_counts(client, run_id, names)
            pids |= family(ours(pool, [s.world.server.actor_pid for s in back]))
            pids.update(run_processes(marks))
        finally:
            await client.aclose()

    lost = {n: (before[n], after[n]) for n in names if after[n] < before[n]}
    assert not lost, f"memories lost: {lost}"
    shard_events = [r for r in records if r["type"] == "service_restarted"]
    assert [r["shard"] for r in shard_events] == [lost_shard]
    assert shard_events[0]["moved"] is False and shard_events[0]["node"] == head_id
    assert 0 < shard_events[0]["seconds"] < 30
    assert lost_k in [r["worker"] for r in records if r["type"] == "worker_restarted"]
    logged = [
        json.loads(line)
        for line in (run_dir / "events.jsonl").read_text().splitlines()
        if '"service_restarted"' in line
    ]
    assert [r["shard"] for r in logged] == [lost_shard]

    async def nothing_left() -> bool:
        return all(gone(p) for p in pids) and not run_processes(marks)

    await wait_until_async(nothing_left, 30, "every process of the run gone")
    print(json.dumps({"test_s": round(time.monotonic() - began, 1), "running_s":
                      round(running_s, 1), "shard_back_s": round(shard_s, 2), "worker_back_s":
                      round(worker_s, 2), "restart_s": shard_events[0]["seconds"],
                      "processes": len(pids)}))  # fmt: skip
