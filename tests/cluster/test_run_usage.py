"""The run's processes measured from their pids (``piano bench village --workers/--cluster``:
workers and shard servers that are Ray actors' children are not the bench's own): each root
and everything it started, counted once, CPU from the window's start."""

from __future__ import annotations

import asyncio
import sys

import psutil

from agent_runtime.app.cli.run_usage import RunUsage, kind, processes
from tests.core.helpers import wait_until

BUSY = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'while True: pass']); "
BUSY += "sys.stdin.read()"


async def test_a_root_counts_with_what_it_started_once_and_its_cpu_over_the_window() -> None:
    parent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", BUSY, stdin=asyncio.subprocess.PIPE
    )
    try:
        root = psutil.Process(parent.pid)
        await wait_until(lambda: len(root.children()) == 1, what="the busy child")
        (child,) = root.children()
        usage = RunUsage([parent.pid, parent.pid])
        start = child.cpu_times().user
        await wait_until(lambda: child.cpu_times().user >= start + 0.3, what="0.3 s of CPU")
        got = usage.result([parent.pid, child.pid])  # the child is a root too: still once
        assert got["processes"] == 2
        assert got["cpu_percent"] > 10
        assert got["rss_mb"] > 1
        assert set(processes([parent.pid])) == {parent.pid, child.pid}
    finally:
        for p in psutil.Process(parent.pid).children(recursive=True):
            p.kill()
        parent.kill()
        async with asyncio.timeout(10):
            await parent.wait()
    assert processes([parent.pid]) == {}


def test_each_process_of_a_run_is_named_by_what_it_is() -> None:
    ray = "/x/.venv/lib/python3.11/site-packages/ray"
    assert kind([f"{ray}/core/src/ray/gcs/gcs_server", "--log_dir=/tmp"]) == "ray gcs"
    assert kind([f"{ray}/core/src/ray/raylet/raylet", "--head"]) == "ray raylet"
    assert kind(["ray::IDLE"]) == "ray idle worker"
    assert kind(["ray::_RayServerActor.wait_exit"]) == "ray actor (shard)"
    assert kind(["node", "/w/bots/server/host.js", "{}"]) == "minecraft server"
    assert kind(["/w/.venv/bin/python", "/w/.venv/bin/piano", "worker", "c.yaml"]) == (
        "piano worker"
    )
    assert kind(["python", "something else"]) == "other"


async def test_the_window_s_cost_is_also_given_by_kind_of_process() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import sys; sys.stdin.read()", stdin=asyncio.subprocess.PIPE
    )
    try:
        got = RunUsage([proc.pid]).result([proc.pid])
        assert got["by_kind"] == {
            "other": {"cpu_percent": got["cpu_percent"], "rss_mb": got["rss_mb"], "processes": 1}
        }
    finally:
        proc.kill()
        async with asyncio.timeout(10):
            await proc.wait()
