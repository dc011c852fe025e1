"""A killed run resumes from its folder with its memories; two runs cannot share a folder."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import yaml
from redis.asyncio import Redis

from agent_runtime.app.run_folder import RunFolderBusy, RunFolderLock
from agent_runtime.services import RedisServer
from modules.memory.persistence import stream_prefix

pytestmark = pytest.mark.services

NAMES = ("Ann", "Bob")


def piano(*args: str) -> list[str]:
    return [sys.executable, "-m", "agent_runtime.app.cli.main", *args]


def wait_for(cond: object, limit: float, what: str) -> None:
    """Poll files a child process writes (no shared loop to wait on); fail after ``limit``."""
    deadline = time.monotonic() + limit
    while not cond():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {limit}s waiting for {what}")
        time.sleep(0.1)


def decisions(run_dir: Path) -> int:
    path = run_dir / "events.jsonl"
    if not path.exists():
        return 0
    return sum('"type":"decision"' in line for line in path.read_text().splitlines())


async def memories(run_dir: Path, run_id: str) -> dict[str, int]:
    """Start a Redis of our own on the run's data (its append-only file) and count records."""
    async with RedisServer(run_dir / "redis") as server:
        client: Redis = Redis.from_url(server.url)
        try:
            return {n: int(await client.hlen(stream_prefix(run_id, n) + "records")) for n in NAMES}
        finally:
            await client.aclose()


@pytest.fixture
def village_file(tmp_path: Path) -> Path:
    path = tmp_path / "village.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "run": {"seed": 2, "time_scale": 0.3, "progress_every": 1, "embedder": "hashing"},
                "world": {"kind": "none"},
                "agents": [{"name": n, "traits": ["You are careful."]} for n in NAMES],
            }
        )
    )
    return path


@pytest.fixture
def first_run(tmp_path: Path, village_file: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        piano("run", str(village_file), "--out", str(tmp_path / "runs"), "--run-id", "r1",
              "--duration", "120", "--quiet"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


def test_the_lock_refuses_a_second_holder(tmp_path: Path) -> None:
    a, b = RunFolderLock(tmp_path), RunFolderLock(tmp_path)
    a.acquire()
    with pytest.raises(RunFolderBusy, match=str(os.getpid())):
        b.acquire()
    a.release()
    b.acquire()  # free again once released
    b.release()


async def test_sigkill_then_resume_keeps_every_memory(
    tmp_path: Path, first_run: subprocess.Popen[bytes]
) -> None:
    run_dir = tmp_path / "runs" / "r1"
    wait_for(lambda: decisions(run_dir) >= 6, 60, "the first run deciding")
    # a second village cannot take the folder while the first one runs
    busy = await asyncio.to_thread(
        subprocess.run, piano("run", "--resume", str(run_dir), "--duration", "5"),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert busy.returncode == 2 and "in use by pid" in busy.stderr, busy.stderr
    services = json.loads((run_dir / "run.json").read_text())["service_pids"]
    os.kill(first_run.pid, signal.SIGKILL)  # the whole run: its children follow (pdeathsig)
    first_run.wait(timeout=30)
    wait_for(
        lambda: not any(p and psutil.pid_exists(p) for p in services.values()),
        30,
        "the run's Redis and broker to end with it",
    )
    before = await memories(run_dir, "r1")
    assert all(n > 0 for n in before.values()), before
    resumed = await asyncio.to_thread(
        subprocess.run, piano("run", "--resume", str(run_dir), "--duration", "6", "--quiet"),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    after = await memories(run_dir, "r1")
    assert all(after[n] >= before[n] for n in NAMES), (before, after)
    assert sum(after.values()) > sum(before.values())  # the resumed agents went on remembering
    starts = [
        json.loads(line)
        for line in (run_dir / "events.jsonl").read_text().splitlines()
        if '"type":"run_started"' in line
    ]
    assert len(starts) == 2
    assert json.loads((run_dir / "run.json").read_text())["run_id"] == "r1"
