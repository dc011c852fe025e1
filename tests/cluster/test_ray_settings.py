"""A Ray started for a run runs only what the run needs beside its actors
(agent_runtime/app/launchers/ray_settings.py): no log monitor, no autoscaler monitor, no
prestarted idle workers, and its actors (and so the shard servers and body hosts they start)
at niceness 0, not Ray's 15."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import psutil
import pytest
import ray  # the `cluster` extra (`make install` installs it)

from agent_runtime.app.cli.run_usage import kind
from agent_runtime.app.launchers.local_cluster import local_ray_cluster
from agent_runtime.app.launchers.ray_launcher import RayLauncher
from agent_runtime.app.launchers.ray_settings import DASHBOARD_ENV, head_args
from tests.core.helpers import wait_until


class Probe:
    def niceness(self) -> int:
        return os.getpriority(os.PRIO_PROCESS, 0)


def ray_kinds() -> dict[str, int]:
    """This process's descendants by kind (a local Ray's processes are its children)."""
    out: dict[str, int] = {}
    for p in psutil.Process().children(recursive=True):
        try:
            k = kind(p.cmdline())
        except psutil.Error:
            continue
        out[k] = out.get(k, 0) + 1
    return out


@pytest.mark.timeout(180)
async def test_a_local_two_node_ray_runs_only_what_a_run_needs() -> None:
    with local_ray_cluster(2) as spec:
        async with RayLauncher(spec.address):
            probe: Any = ray.remote(num_cpus=0.1)(Probe).remote()
            async with asyncio.timeout(60):
                assert await probe.niceness.remote() == 0
            await wait_until(lambda: ray_kinds().get("ray raylet") == 2, 30, "both raylets")
            kinds = ray_kinds()
            assert kinds["ray gcs"] == 1
            for absent in ("ray log monitor", "ray autoscaler monitor", "ray idle worker"):
                assert absent not in kinds, kinds


def test_the_dashboard_comes_back_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DASHBOARD_ENV, raising=False)
    assert head_args()["include_dashboard"] is False
    monkeypatch.setenv(DASHBOARD_ENV, "1")
    assert head_args()["include_dashboard"] is True
