"""A killed run resumes from its folder with every state section and memory record it had
stored, by content; a store broken on purpose is caught; two runs cannot share a folder."""

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

from agent_runtime.app.durability import compare, content_digest
from agent_runtime.app.fault_breaks import empty_store
from agent_runtime.app.fault_store import stored_digest
from agent_runtime.app.run_folder import RunFolderBusy, RunFolderLock
from agent_runtime.clock import wall_time

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


async def test_sigkill_then_resume_keeps_every_record_by_content(
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
    info = json.loads((run_dir / "run.json").read_text())
    # what the running village's Redis holds just before the kill, read by a client of ours
    before = await content_digest(info["redis"], "r1", list(NAMES))
    killed_at = wall_time()
    os.kill(first_run.pid, signal.SIGKILL)  # the whole run: its children follow (pdeathsig)
    first_run.wait(timeout=30)
    wait_for(
        lambda: not any(p and psutil.pid_exists(p) for p in info["service_pids"].values()),
        30,
        "the run's Redis and broker to end with it",
    )
    sections = {k[1] for k in before.entries if k[0] == "Ann"}
    assert {"section:goals", "section:plan", "section:decision"} <= sections, sections
    assert all(any(k == (n, "memory:1") for k in before.entries) for n in NAMES), before
    resumed = await asyncio.to_thread(
        subprocess.run, piano("run", "--resume", str(run_dir), "--duration", "6", "--quiet"),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    after, _ = await stored_digest(run_dir, "r1", agents=NAMES)
    kept = compare(before, after, fault_at=killed_at, window_s=0.0)
    assert (kept["missing"], kept["changed"]) == (0, 0), kept
    assert kept["records_after"] > kept["records_before"]  # the resumed agents went on
    starts = [
        json.loads(line)
        for line in (run_dir / "events.jsonl").read_text().splitlines()
        if '"type":"run_started"' in line
    ]
    assert len(starts) == 2
    assert json.loads((run_dir / "run.json").read_text())["run_id"] == "r1"

    # the same comparison catches a store that came back broken
    lost, done = await stored_digest(run_dir, "r1", "memory", before, NAMES)
    assert compare(before, lost, fault_at=killed_at, window_s=0.0)["missing"] == 1, done
    rolled, done = await stored_digest(run_dir, "r1", "section", after, NAMES)
    assert compare(after, rolled, fault_at=killed_at, window_s=0.0)["changed"] == 1, done
    empty_store(run_dir / "redis")
    nothing, _ = await stored_digest(run_dir, "r1", agents=NAMES)
    gone = compare(before, nothing, fault_at=killed_at, window_s=0.0)
    assert gone["missing"] == gone["records_before"] > 0, gone
