"""Worker and shard actors ask Ray for the share of a CPU their measured cost needs
(agent_runtime/app/launchers/actor_costs.py), so that actors share a small machine's cores;
a request the cluster cannot place is refused at once, saying what it asked and what the
cluster has (not after a two-minute wait)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from agent_runtime.app.launchers.actor_costs import measured_actor_costs, village_requests
from agent_runtime.app.launchers.handles import WorkerLaunch
from agent_runtime.app.plan.costs import ROOT, Sources
from agent_runtime.services import ServiceError


def _by_kind(rel: str) -> dict[str, dict[str, float]]:
    kinds: dict[str, dict[str, float]] = json.loads((ROOT / rel).read_text())["all_processes"][
        "by_kind"
    ]
    return kinds


def test_the_requests_are_the_measured_costs_of_what_each_actor_runs() -> None:
    src = Sources()
    kinds = _by_kind(src.ray)
    agents = json.loads((ROOT / src.ray).read_text())["agents"]
    # worker: its actor process + (piano worker + body hosts) per agent, 5 agents each
    worker = kinds["ray actor (worker)"]["cpu_percent"] / kinds["ray actor (worker)"]["processes"]
    hosts = kinds["piano worker"]["cpu_percent"] + kinds["body host"]["cpu_percent"]
    worker_cores = (worker + 5 * hosts / agents) / 100
    shard = kinds["ray actor (shard)"]["cpu_percent"] / kinds["ray actor (shard)"]["processes"]
    shard_cores = (shard + 5 * kinds["minecraft server"]["cpu_percent"] / agents) / 100
    w, s = village_requests(10, 2, 2, embodied=True)
    assert worker_cores <= w < worker_cores + 0.01 and shard_cores <= s < shard_cores + 0.01
    # the command on a 2-core machine: 2 workers and 2 shards fit with room to spare
    assert 2 * w + 2 * s < 0.5
    # a bigger worker asks more; none asks less than a hundredth
    assert village_requests(100, 2, 2, embodied=True)[0] > w
    assert village_requests(1, 1, 1, embodied=False)[0] == 0.01
    assert measured_actor_costs().source.startswith(src.ray)


def _sleeper(k: int, tmp_path: Path) -> WorkerLaunch:
    argv = (sys.executable, "-c", "import time; time.sleep(120)")
    return WorkerLaunch(k, argv, {}, tmp_path / f"worker-{k}.log", stop_timeout=5.0)


@pytest.mark.services
@pytest.mark.timeout(240)
async def test_actors_share_one_cpu_and_a_request_that_cannot_fit_is_refused_at_once(
    tmp_path: Path,
) -> None:
    from agent_runtime.app.launchers.local_cluster import local_ray_cluster
    from agent_runtime.app.launchers.ray_launcher import RayLauncher

    with local_ray_cluster(1, cpus_per_node=1) as spec:
        async with RayLauncher(spec.address, num_cpus=0.3) as launcher:
            # three workers on one CPU: with a whole CPU each the second would wait forever
            handles = [await launcher.start(_sleeper(k, tmp_path)) for k in range(3)]
            try:
                assert all(h.pid is not None for h in handles)
                t0 = time.monotonic()
                with pytest.raises(ServiceError) as err:  # 0.1 left: a fourth cannot fit
                    await launcher.start(_sleeper(3, tmp_path))
                said = str(err.value)
                assert time.monotonic() - t0 < 10  # at once, not PLACE_LIMIT_S
                assert "worker 3" in said and "asks 0.3 CPU" in said
                assert "1 CPU on 1 node(s)" in said and "free" in said
                big = RayLauncher(spec.address, num_cpus=2.0)
                with pytest.raises(ServiceError, match=r"asks 2 CPU .* 1 on the largest"):
                    await big.start(_sleeper(4, tmp_path))
            finally:
                for h in handles:
                    await h.stop()
