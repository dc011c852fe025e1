"""The faults that test what is stored: a SIGKILL of the village's Redis, and a SIGKILL of a
whole ``piano run`` followed by ``piano run --resume``, each judged by content.

Just before the fault a fresh client takes a digest of every agent's state sections and
memory records (for the village of this process, after a flush of its write-behind cache);
after the recovery another. The fault is recovered only when nothing in the first is missing
or changed in the second (:func:`agent_runtime.app.durability.compare`: the digest holds only
what Redis acknowledged, which the promise says no kill loses, so the window is 0), and, after
the Redis kill, when the village's writes reach the restarted Redis again. ``sabotage`` (one
of :data:`agent_runtime.app.fault_breaks.BREAKS`) breaks the recovery on purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import psutil

from agent_runtime.app.durability import (
    Digest,
    compare,
    content_digest,
    fsync_policy,
    intact,
    promise,
)
from agent_runtime.app.fault_breaks import damage, empty_store
from agent_runtime.app.fault_kit import AGENTS, FaultResult, checked, inject, until
from agent_runtime.clock import wall_time
from agent_runtime.services import ChildProcess, RedisServer

__all__ = ["kill_redis", "sigkill_and_resume", "stored_digest"]


def _fresh_writes(digest: Digest, since: float) -> bool:
    return any(k[1].startswith("section:") and e.at > since for k, e in digest.entries.items())


async def kill_redis(v: Any, window: float, sabotage: str | None = None) -> FaultResult:
    """SIGKILL of the village's Redis (supervised: it restarts on its data)."""
    server, url, run_id, names = v.redis_server, v.redis_url, v.run_id, list(AGENTS)
    earlier = await content_digest(url, run_id, names)
    seen: dict[str, Any] = {}

    async def kill() -> None:
        await v.store.flush()
        seen["lag"] = v.store.write_lag_max
        seen["redis"] = await fsync_policy(url)
        seen["before"] = await content_digest(url, run_id, names)
        seen["at"] = wall_time()
        seen["restarts"] = server.restarts
        os.kill(server.pid, signal.SIGKILL)
        if sabotage == "empty":  # before the supervisor starts it again (after 0.5 s)
            empty_store(server.data_dir)

    result = await inject(v, "kill_redis", kill, lambda: server.restarts > seen["restarts"], window)
    if "before" not in seen:
        return result
    after = await content_digest(url, run_id, names)

    async def resumed() -> bool:
        nonlocal after
        after = await content_digest(url, run_id, names)
        return _fresh_writes(after, seen["at"])

    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(window):
            while not await resumed():  # noqa: ASYNC110 - the village's writes, read by polling
                await asyncio.sleep(0.5)
    if sabotage in ("memory", "section"):
        result.detail["sabotage"] = await damage(url, run_id, sabotage, seen["before"], earlier)
        after = await content_digest(url, run_id, names)
    elif sabotage:
        result.detail["sabotage"] = "Redis restarted without its data"
    content = compare(seen["before"], after, fault_at=seen["at"], window_s=0.0)
    result.detail["content"] = content
    result.detail["promise"] = promise(v.store.flush_interval, seen["lag"], seen["redis"])
    return checked(
        result,
        {"content_kept": intact(content), "writes_resumed": _fresh_writes(after, seen["at"])},
    )


def _piano(*args: str) -> list[str]:
    return [sys.executable, "-m", "agent_runtime.app.cli.main", *args]


def _decisions(run_dir: Path) -> int:
    path = run_dir / "events.jsonl"
    if not path.exists():
        return 0
    return sum('"type":"decision"' in line for line in path.read_text().splitlines())


async def stored_digest(
    run_dir: Path,
    run_id: str,
    sabotage: str | None = None,
    earlier: Digest | None = None,
    agents: tuple[str, ...] = AGENTS,
) -> tuple[Digest, str]:
    """The digest of a stopped run's store, read from its append-only file by a Redis of our
    own (after ``sabotage``, when given, against the digest ``earlier``); what was broken."""
    done = ""
    async with RedisServer(run_dir / "redis") as server:
        if sabotage in ("memory", "section") and earlier is not None:
            done = await damage(server.url, run_id, sabotage, earlier, earlier)
        return await content_digest(server.url, run_id, list(agents)), done


async def sigkill_and_resume(
    config_file: Path, root: Path, window: float, resume_s: float, sabotage: str | None = None
) -> FaultResult:
    """SIGKILL of a whole ``piano run`` (its Redis and broker follow), then ``--resume``."""
    result = FaultResult("sigkill_run")
    run_dir = root / "runs" / "killed"
    killed = ChildProcess(
        "piano run (to be killed)",
        _piano("run", str(config_file), "--out", str(root / "runs"), "--run-id", "killed",
               "--quiet", "--no-web"),
        log_path=root / "killed.log",
    )  # fmt: skip
    before = Digest()
    async with killed:
        assert killed.proc is not None
        try:
            await until(lambda: _decisions(run_dir) >= 6, window)
            url = json.loads((run_dir / "run.json").read_text())["redis"]
            before = await content_digest(url, "killed", list(AGENTS))
        finally:
            with contextlib.suppress(ProcessLookupError):
                killed.proc.send_signal(signal.SIGKILL)
            await killed.proc.wait()
    info = json.loads((run_dir / "run.json").read_text())
    pids = [p for p in info.get("service_pids", {}).values() if p]
    await until(lambda: not any(psutil.pid_exists(p) for p in pids), 30)
    if sabotage == "empty":
        empty_store(run_dir / "redis")
        result.detail["sabotage"] = "Redis restarted without its data"
    d0 = _decisions(run_dir)
    t0 = time.monotonic()
    resume = ChildProcess(
        "piano run --resume",
        _piano("run", "--resume", str(run_dir), "--duration", str(resume_s), "--quiet",
               "--no-web"),
        log_path=root / "resumed.log",
        stop_timeout=30.0,
    )  # fmt: skip
    first: float | None = None
    async with resume:
        resumed = resume.proc
        assert resumed is not None
        while resumed.returncode is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.2):
                    await resumed.wait()
            if first is None and _decisions(run_dir) > d0:
                first = time.monotonic() - t0
    after, done = await stored_digest(run_dir, "killed", sabotage, before)
    if done:
        result.detail["sabotage"] = done
    content = compare(before, after, fault_at=wall_time(), window_s=0.0)
    result.recovered = resumed.returncode == 0 and first is not None
    result.seconds_to_recover = first
    result.decisions_in_window = _decisions(run_dir) - d0
    result.detail["content"] = content
    return checked(result, {"content_kept": intact(content)})
