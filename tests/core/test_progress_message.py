"""A progress record on the bus is typed whole: every figure a village sends is a field of
``Progress``, and a figure the model does not know is refused."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from agent_runtime.app.progress import bench_counters, village_figures
from agent_runtime.bus.messages import Progress, decode, encode
from agent_runtime.config.llm import LLMSettings
from agent_runtime.llm.factory import LLMService
from agent_runtime.run.coherence import CoherenceTracker
from agent_runtime.sched_stats import ModuleStats, SchedulerMetrics
from agent_runtime.world import Vec3


def _perceiving(x: float) -> Any:
    """An agent's state whose perception stands at (x, 64, -x)."""
    observation = SimpleNamespace(position=Vec3(x=x, y=64.0, z=-x))
    return SimpleNamespace(raw=lambda section: SimpleNamespace(observation=observation))


async def _record(tmp_path: Path) -> dict[str, Any]:
    """What ``Village._progress`` sends for a worker with a model: the same functions."""
    metrics = SchedulerMetrics()
    for i in range(20):
        metrics.record_lag(i / 1000.0)
    metrics.stats["planning"].append(ModuleStats(timed=3))
    metrics.expected_interval["planning"] = 2.0
    coherence = CoherenceTracker(window_s=30.0)
    coherence({"type": "skill_started", "agent": "Ann", "t": 1.0, "call": {"skill": "collect"}})
    coherence({"type": "speech", "agent": "Ann", "t": 1.5, "text": "I'll collect some wood"})
    agents = {"Ann": _perceiving(1.0), "Bob": _perceiving(2.5)}
    async with LLMService(LLMSettings(provider="simulated"), run_dir=tmp_path) as llm:
        llm.accounting.stats(module="planning")
        village = SimpleNamespace(
            metrics=metrics,
            services=SimpleNamespace(llm=llm),
            coherence=coherence,
            store=SimpleNamespace(agent=agents.__getitem__),
            agents=agents,
            bus=SimpleNamespace(published=7),
        )
        info: dict[str, Any] = {
            "elapsed_s": 12.5,
            "agents": 2,
            "decisions": 4,
            "speech": 1,
            "skills": 2,
            "errors": 0,
            "unresponsive": 0,
        }
        info.update(village_figures(village))
        info.update(bench_counters(village))
        info["shard"] = [0, 2]
    return info


async def test_a_villages_progress_record_is_its_model(tmp_path: Path) -> None:
    info = await _record(tmp_path)
    # the record holds every kind of figure: lag, model use, coherence, positions, counters
    assert {"lag_ms_p95", "llm_modules", "llm_text", "positions", "gc", "module_timed"} <= set(info)
    progress = Progress.model_validate(info)
    assert progress.positions == {"Ann": (1.0, 64.0, -1.0), "Bob": (2.5, 64.0, -2.5)}
    assert progress.gc is not None and progress.shard == (0, 2)
    # what the page and the benchmarks read back is the record as it was sent
    sent = json.loads(json.dumps(info))
    assert progress.figures() == {k: v for k, v in sent.items() if v is not None}
    wire = decode("piano/r1/run/progress", encode(progress))
    assert isinstance(wire, Progress) and wire.figures() == progress.figures()


async def test_a_figure_the_model_does_not_know_is_refused(tmp_path: Path) -> None:
    info = await _record(tmp_path)
    with pytest.raises(ValidationError, match="extra"):
        Progress.model_validate({**info, "llm_queue": 3})
    with pytest.raises(ValidationError):
        Progress.model_validate({**info, "gc": {**info["gc"], "pauses": 1}})
    with pytest.raises(ValidationError):
        Progress.model_validate({**info, "positions": {"Ann": [1.0, 2.0]}})
