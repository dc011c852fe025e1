"""The run's processes measured from their pids (``piano bench village --workers/--cluster``:
workers and shard servers that are Ray actors' children are not the bench's own): each root
and everything it started, counted once, CPU from the window's start."""

from __future__ import annotations

import asyncio
import sys

import psutil

from agent_runtime.app.cli.run_usage import RunUsage, processes
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
