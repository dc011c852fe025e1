"""Workers seen from the coordinator: their event records reach the run's own log while they
are written (EventFollower), and workers that cannot start are reported."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.coordinator import WorkersNotReady, coordinate, village_agents
from agent_runtime.app.village import VillageOptions
from agent_runtime.app.workers import EventFollower
from agent_runtime.config.loader import parse_config
from agent_runtime.run.events import EventLog
from tests.core.helpers import wait_until


def _append(path: Path, *records: dict[str, Any], tail: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records) + tail)


async def test_records_of_every_worker_reach_the_run_log_with_their_own_time(
    tmp_path: Path,
) -> None:
    folders = [tmp_path / "workers" / "0", tmp_path / "workers" / "1"]
    seen: list[dict[str, Any]] = []
    async with EventLog(tmp_path / "events.jsonl") as log:
        log.add_listener(seen.append)
        async with EventFollower(folders, log, every=0.01) as follower:
            _append(folders[0] / "events.jsonl",
                    {"t": 1.5, "type": "run_started", "run_id": "r"},
                    {"t": 2.0, "type": "speech", "agent": "Ann", "text": "hi", "delivered": True})
            # worker 1 is half-way through writing its second line
            _append(folders[1] / "events.jsonl",
                    {"t": 2.5, "type": "decision", "agent": "Bob", "action": "explore"},
                    tail='{"t": 3.0, "type": "goal", "agent": "Bo')
            await wait_until(lambda: len(seen) == 2, 5, "both complete records copied")
            assert follower.copied == 2
            _append(folders[1] / "events.jsonl", tail='b", "goal": "wood"}\nnot json\n')
            await wait_until(lambda: len(seen) == 3, 5, "the finished line copied")
            # a restarted worker appends; written just before the follower stops: still copied
            _append(folders[0] / "events.jsonl", {"t": 4.0, "type": "goal", "agent": "Ann"},
                    {"t": 4.1, "type": "run_stopped", "reason": "signal"})
        assert log.counts["goal"] == 2 and log.counts["speech"] == 1
    assert "run_started" not in log.counts and "run_stopped" not in log.counts
    assert follower.broken == 1
    by_type = {(r["type"], r.get("agent")): r for r in seen}
    speech = by_type[("speech", "Ann")]
    assert speech["t"] == 2.0 and speech["worker"] == 0 and speech["delivered"] is True
    assert by_type[("goal", "Bob")] == {"t": 3.0, "type": "goal", "agent": "Bob",
                                        "goal": "wood", "worker": 1}
    written = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert sorted((r["t"], r["type"]) for r in written) == [
        (2.0, "speech"), (2.5, "decision"), (3.0, "goal"), (4.0, "goal")]


async def test_a_file_that_shrank_is_read_again_from_its_start(tmp_path: Path) -> None:
    folder = tmp_path / "w0"
    seen: list[dict[str, Any]] = []
    log = EventLog(None)
    log.add_listener(seen.append)
    follower = EventFollower([folder], log)
    assert follower.poll() == 0  # no file yet
    _append(folder / "events.jsonl", {"t": 1.0, "type": "goal", "agent": "A", "goal": "x" * 50})
    assert follower.poll() == 1 and follower.poll() == 0
    (folder / "events.jsonl").write_text(json.dumps({"t": 9.0, "type": "goal", "agent": "B"}) + "\n")
    assert follower.poll() == 1
    assert [r["agent"] for r in seen] == ["A", "B"]


@pytest.mark.services
async def test_workers_that_cannot_start_are_reported_not_waited_for(tmp_path: Path) -> None:
    """A worker that keeps exiting before its agents run (here: its village file is missing)
    ends the wait with the reason and its log, long before the start-up deadline."""
    cfg = parse_config({"run": {"seed": 1, "embedder": "hashing"}, "world": {"kind": "none"},
                        "agents": [{"name": "Ann"}, {"name": "Bob"}]}, "two agents")
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=f"t{os.getpid()}")
    started = time.monotonic()
    async with coordinate(cfg, opts, workers=2, config=tmp_path / "missing.yaml") as coord:
        assert coord.village.world is not None
        agents = village_agents(cfg, coord.village.world, None)
        assert [a.name for a in agents] == ["Ann", "Bob"]
        with pytest.raises(WorkersNotReady, match=r"exited 3 times[\s\S]*file not found"):
            await coord.ready(agents, within=120)
    assert time.monotonic() - started < 60
