"""Specialisation, item progression and social perception in the embedded Minecraft world, at
a small scale (3 agents, under a minute of protocol time each): the runner writes its raw
files and ``recompute.py`` gives back exactly the report's figures from them."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from experiments.files import read_csv
from experiments.registry import run
from experiments.runner_base import verify
from experiments.spec import ExperimentOptions
from modules.memory.encoder import HashingEncoder

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.minecraft]


async def _run(tmp_path: Path, small_config: Callable[..., Path], name: str, condition: str,
               protocol: dict[str, Any], time_scale: float = 1.0,
               ) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """One run of ``name`` (3 agents, time scale 1 unless given: a protocol whose checks
    count protocol-time windows runs at 0.5, half the wall time); its output folder, metrics
    and the figures ``recompute.py`` gives from the raw files (checked equal to the
    report's)."""
    opts = ExperimentOptions(out=tmp_path / "out", world="embedded", llm="heuristic", repeats=1,
                             agents=3, time_scale=time_scale, conditions=(condition,),
                             embedder=HashingEncoder())
    out, metrics = await run(name, small_config(name, protocol), opts)
    module = importlib.import_module(f"experiments.{name}.recompute")
    assert (out / "report.md").exists() and (out / "runs.csv").exists()
    assert [r["agents"] for r in read_csv(out / "runs.csv")] == ["3"]
    figs: dict[str, Any] = module.figures(out)
    assert verify(out, figs, module.tables(out, figs)) == []
    return out, metrics, figs


async def test_specialization_in_the_world(tmp_path: Path,
                                           small_config: Callable[..., Path]) -> None:
    out, _, figs = await _run(tmp_path, small_config, "specialization", "normal",
                              {"duration_s": 40, "sample_every_s": 5, "role_every_s": 20},
                              time_scale=0.5)
    roles = read_csv(out / "roles.csv")
    assert len(roles) == 3 * 2  # agents x (40 / 20) windows
    assert read_csv(out / "goals.csv")  # social goals were generated in the world
    actions = read_csv(out / "actions.csv")
    assert actions  # the bodies acted
    assert sum(map(sum, figs["normal"]["action_by_role"]["counts"])) == len(actions)


async def test_item_progression_in_the_world(tmp_path: Path,
                                             small_config: Callable[..., Path]) -> None:
    out, metrics, figs = await _run(
        tmp_path, small_config, "item_progression", "full",
        {"duration_s": 45, "sample_every_s": 15, "spawn_spacing": 24})
    assert metrics["measured_by"] == ["admin_api"]
    acq = read_csv(out / "acquisitions.csv")
    # every acquisition is a row of its own, at the time it happened
    assert all(0 <= float(a["t"]) <= 45 + 30 for a in acq)
    # pickups and crafts are seen as they happen, not only by the inventory reads
    assert any(a["source"] == "pickup" or a["source"].startswith("skill:") for a in acq)
    per_agent: dict[str, list[str]] = {}
    for a in acq:
        per_agent.setdefault(a["agent"], []).append(a["item"])
    for items in per_agent.values():
        assert len(items) == len(set(items))  # the first acquisition of each kind only
    assert figs["full"]["agents"] == 3
    assert figs["full"]["acquisitions"] == len(acq)


async def test_social_perception_in_the_world(tmp_path: Path,
                                              small_config: Callable[..., Path]) -> None:
    out, _, figs = await _run(tmp_path, small_config, "social_perception", "full",
                              {"duration_s": 50, "max_observers": 2}, time_scale=0.5)
    agents = read_csv(out / "agents.csv")
    assert len(agents) == 3
    assert len(figs["full"]["runs"][0]["r_by_min_observers"]) == 2
    for row in read_csv(out / "impressions.csv"):
        assert row["observer"] != row["person"]
