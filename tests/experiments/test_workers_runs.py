"""Experiments with their agents in two worker processes (``--workers 2``), world none: the
protocols sample every agent through Redis and the run's ``events.jsonl`` holds every
worker's records, so the outputs are as complete as in process. Real redis-server, mosquitto
and ``piano worker`` children."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml

from experiments.files import read_csv, read_events
from experiments.registry import default_config, run
from experiments.runner_base import verify
from experiments.spec import ExperimentOptions
from tests.experiments.interrupt import interrupt_when_logged

pytestmark = pytest.mark.services


def config(tmp_path: Path, name: str, protocol: dict[str, Any] | None = None) -> Path:
    """The shipped file with a cheap encoder named in the village (workers load their own)."""
    data = yaml.safe_load(default_config(name).read_text())
    data["protocol"].update(protocol or {})
    data["village"].setdefault("run", {})["embedder"] = "hashing"
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def options(tmp_path: Path, **kw: Any) -> ExperimentOptions:
    return ExperimentOptions(out=tmp_path / "out", world="none", llm="heuristic", repeats=1,
                             workers=2, **kw)


def hosted_by_both(run_dir: Path, names: set[str]) -> dict[str, int]:
    """Which worker each agent's records came from, checked: K = index mod 2, both used."""
    events = read_events(run_dir)
    assert not [e for e in events if e["type"] == "run_started" and "worker" in e]
    worker: dict[str, int] = {}
    for e in events:
        if e.get("agent") in names and "worker" in e:
            assert worker.setdefault(e["agent"], e["worker"]) == e["worker"], e
    assert set(worker) == names and set(worker.values()) == {0, 1}
    merged = json.loads((run_dir / "metrics.json").read_text())
    assert merged["workers"]["count"] == 2 and merged["workers"]["restarts"] == 0
    assert merged["agents"] == len(names) and merged["module_errors"] == 0
    assert merged["coordinator"]["events_copied"] > 0
    return worker


async def test_culture_on_two_workers(tmp_path: Path) -> None:
    out, metrics = await run("culture", config(tmp_path, "culture"),
                             options(tmp_path, scale=0.012, time_scale=0.05))
    names = [r["name"] for r in read_csv(out / "residents.csv")]
    worker = hosted_by_both(out / "runs" / "full-r0", set(names))
    assert [worker[n] for n in names] == [i % 2 for i in range(len(names))]
    # every agent's goal history and position were read through Redis
    goals = read_csv(out / "goals.csv")
    assert {g["agent"] for g in goals} == set(names)
    end = [p for p in read_csv(out / "positions.csv") if float(p["t"]) == 108.0]
    assert sorted(p["agent"] for p in end) == sorted(names)
    assert {m["agent"] for m in read_csv(out / "memes.csv")} == set(names)
    assert metrics["workers"] == 2 and metrics["figures"]["full-r0"]["agents"] == 6
    assert "| workers | 2 |" in (out / "report.md").read_text()
    assert json.loads((out / "options.json").read_text())["workers"] == 2
    from experiments.culture import recompute

    figs = recompute.figures(out)
    assert verify(out, figs, recompute.tables(out, figs)) == []


async def test_specialization_on_two_workers(tmp_path: Path) -> None:
    """Its roles come from every agent's goals (Redis), its actions from the merged events."""
    cfg = config(tmp_path, "specialization",
                 {"duration_s": 300, "sample_every_s": 10, "role_every_s": 30})
    out, _ = await run("specialization", cfg,
                       options(tmp_path, agents=3, time_scale=0.02, conditions=("normal",)))
    roles = read_csv(out / "roles.csv")
    names = {r["agent"] for r in roles}
    assert len(names) == 3 and len(roles) == 3 * 10  # agents x (300 / 30) windows
    assert all(r["window"] for r in roles if float(r["t"]) >= 60)  # goals were read
    hosted_by_both(out / "runs" / "normal-r0", names)
    actions = read_csv(out / "actions.csv")
    assert {a["agent"] for a in actions} == names
    from experiments.specialization import recompute

    figs = recompute.figures(out)
    assert verify(out, figs, recompute.tables(out, figs)) == []


def test_sigint_stops_an_experiment_on_workers_and_leaves_no_process(tmp_path: Path) -> None:
    cfg = config(tmp_path, "specialization")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.app.cli.main", "experiment", "specialization",
         str(cfg), "--world", "none", "--time-scale", "0.05", "--repeats", "2", "--agents", "3",
         "--workers", "2", "--out", str(tmp_path / "out"), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out = interrupt_when_logged(proc, tmp_path / "out", '"worker":1', "no worker's record reached the run's log")
    assert proc.returncode == 0, out
    (folder,) = list((tmp_path / "out").iterdir())
    assert (folder / "report.md").is_file(), out
    run_dir = folder / "runs" / "normal-r0"
    assert [p.name for p in (folder / "runs").iterdir()] == ["normal-r0"], out
    pids = [json.loads((run_dir / "workers" / str(k) / "run.json").read_text())["pid"]
            for k in (0, 1)]
    assert not [p for p in pids if psutil.pid_exists(p)], "a worker outlived the experiment"
    merged = json.loads((run_dir / "metrics.json").read_text())
    assert merged["agents"] == 3  # both workers stopped cleanly and wrote their metrics
