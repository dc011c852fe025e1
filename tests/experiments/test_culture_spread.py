"""Culture spread out, in the real embedded world: its agents hosted by two worker processes
(``--workers 2``), and its area split over two embedded Minecraft servers (``--shards 2``).
Each run is the slow test's scale (6 agents: 3 towns of 1, one priest, 3 rural; 108 protocol
s); the outputs must be as complete as in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from experiments.culture import recompute
from experiments.files import read_csv, read_events
from experiments.registry import default_config, run
from experiments.runner_base import verify
from experiments.spec import ExperimentOptions

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.minecraft]

SAMPLE_TIMES = 5  # 0, 30, 60, 90 and the end (108 protocol s)


def _config(tmp_path: Path) -> Path:
    """The shipped file with a cheap encoder named in the village (workers load their own)."""
    data = yaml.safe_load(default_config("culture").read_text())
    data["village"].setdefault("run", {})["embedder"] = "hashing"
    path = tmp_path / "culture.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


async def _run(tmp_path: Path, **kw: Any) -> tuple[Path, dict[str, Any]]:
    opts = ExperimentOptions(out=tmp_path / "out", world="embedded", llm="heuristic",
                             repeats=1, scale=0.012, **kw)
    return await run("culture", _config(tmp_path), opts)


def _complete(out: Path, metrics: dict[str, Any]) -> tuple[list[str], list[dict[str, str]]]:
    """Every agent has goals and a world position at every sample time, speech records were
    read, and every figure is what the raw files give."""
    names = [r["name"] for r in read_csv(out / "residents.csv")]
    assert {g["agent"] for g in read_csv(out / "goals.csv")} == set(names)
    positions = read_csv(out / "positions.csv")
    assert {p["by"] for p in positions} == {"admin_api"}
    per_t: dict[str, set[str]] = {}
    for p in positions:
        per_t.setdefault(p["t"], set()).add(p["agent"])
    assert len(per_t) == SAMPLE_TIMES and all(v == set(names) for v in per_t.values()), per_t
    speech = read_csv(out / "speech.csv")
    assert speech and {s["agent"] for s in speech} <= set(names)
    f = metrics["figures"]["full-r0"]
    assert f["speech_lines"] == len(speech) and f["agents"] == len(names) == 6
    figs = recompute.figures(out)
    assert verify(out, figs, recompute.tables(out, figs)) == []
    return names, positions


async def test_culture_on_two_workers_in_the_embedded_world(tmp_path: Path) -> None:
    out, metrics = await _run(tmp_path, time_scale=0.3, workers=2)
    names, _ = _complete(out, metrics)
    run_dir = out / "runs" / "full-r0"
    # the speech came from the workers' logs, copied into the run's as they were written
    said = {e["agent"]: e["worker"] for e in read_events(run_dir) if e["type"] == "speech"}
    assert said and all(said[a] == names.index(a) % 2 for a in said)
    merged = json.loads((run_dir / "metrics.json").read_text())
    assert merged["workers"]["count"] == 2 and merged["workers"]["restarts"] == 0
    assert merged["agents"] == 6 and merged["module_errors"] == 0
    assert json.loads((out / "settings.json").read_text())["full-r0"]["workers"] == 2


async def test_culture_over_two_servers(tmp_path: Path) -> None:
    out, metrics = await _run(tmp_path, time_scale=0.35, shards=2)
    _, positions = _complete(out, metrics)
    residents = read_csv(out / "residents.csv")
    assert {r["shard"] for r in residents} == {"shard0", "shard1"}
    settings = json.loads((out / "settings.json").read_text())["full-r0"]
    assert [s["name"] for s in settings["shards"]] == ["shard0", "shard1"]
    # positions came from both servers' admin APIs: each body from the server it was on
    first = {p["agent"]: p["shard"] for p in positions if float(p["t"]) == 0.0}
    assert first == {r["name"]: r["shard"] for r in residents}
    events = read_events(out / "runs" / "full-r0")
    started = [e for e in events if e["type"] == "world_started"]
    assert sorted(e["shard"] for e in started) == ["shard0", "shard1"]
    moved = [e for e in events if e["type"] == "shard_transfer"]
    assert settings["shard_transfers"] == len(moved)
    assert {p["shard"] for p in positions} <= {"shard0", "shard1"}
