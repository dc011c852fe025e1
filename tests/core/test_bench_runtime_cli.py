"""`piano bench runtime` end to end, small: one JSON object on stdout with the figures the
README quotes, in one process and over two workers; no-op skills at a skill's pace by
default (the median measured in world runs), at once with ``--skill-seconds 0``."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from agent_runtime.app.cli.bench_counts import count_errors
from agent_runtime.app.cli.bench_runtime import DEFAULT_SKILL_SECONDS

pytestmark = pytest.mark.services

FIGURES = {
    "agents",
    "workers",
    "skill_seconds",
    "cc_decisions_per_s",
    "skills_per_agent_s",
    "cadence_error_pct",
    "cadence_error_by_module_pct",
    "sched_lag_ms_p50",
    "sched_lag_ms_p99",
    "redis_ops_per_s",
    "mqtt_msgs_per_s",
    "llm_calls_per_agent_s",
    "cpu_us_per_agent_s",
    "rss_mb_per_agent",
    "unresponsive_agents",
    "errors",
    "errors_by_kind",
}


async def bench(*args: str, limit: float = 150.0) -> dict[str, Any]:
    argv = [sys.executable, "-m", "agent_runtime.app.cli.main", "bench", "runtime", *args]
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        async with asyncio.timeout(limit):
            out, err = await proc.communicate()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode()[-2000:]
    result: dict[str, Any] = json.loads(out)
    return result


async def test_bench_runtime_defaults_to_a_skills_pace_and_reports_it() -> None:
    got = await bench("--agents", "20", "--duration", "8", "--warmup", "4", "--workers", "1")
    assert got.keys() >= FIGURES
    assert got["skill_seconds"] == DEFAULT_SKILL_SECONDS == 10.0
    assert got["agents"] == 20 and got["workers"] == 1
    assert got["unresponsive_agents"] == 0 and got["errors"] == 0
    assert got["llm_calls_per_agent_s"] > 0 and got["cc_decisions_per_s"] > 0


async def test_bench_runtime_skills_at_once_over_two_workers() -> None:
    got = await bench(
        "--agents", "40", "--duration", "8", "--warmup", "6", "--workers", "2",
        "--skill-seconds", "0",
    )  # fmt: skip
    assert got.keys() >= FIGURES
    assert got["skill_seconds"] == 0.0 and got["workers"] == 2
    assert got["unresponsive_agents"] == 0 and got["errors"] == 0
    assert got["skills_per_agent_s"] > 0  # counted over the workers' own progress records


def test_the_cli_default_is_the_measured_skill_pace_and_reaches_the_config() -> None:
    from agent_runtime.app.cli.bench_runtime import _config
    from agent_runtime.app.cli.main import build_parser

    args = build_parser().parse_args(["bench", "runtime"])
    assert args.skill_seconds == DEFAULT_SKILL_SECONDS
    cfg = _config(3, 300.0, False, args.skill_seconds)
    assert cfg.world.null_skill_seconds == DEFAULT_SKILL_SECONDS


def test_errors_are_counted_by_module_and_exception_within_the_window() -> None:
    def err(t: float, module: str, error: str) -> dict[str, object]:
        return {"t": t, "type": "module_error", "module": module, "error": error}

    records = [
        err(9.0, "memory", "TimeoutError: before the window"),
        err(10.0, "memory", "TimeoutError: Timeout reading from 127.0.0.1:5"),
        err(11.0, "memory", "TimeoutError: Timeout reading from 127.0.0.1:6"),
        err(12.0, "planning", "KeyError: 'x'"),
        {"t": 12.0, "type": "decision", "module": "cognitive_controller"},
        err(21.0, "planning", "KeyError: after"),
    ]
    assert count_errors(records, 10.0, 20.0) == {"memory: TimeoutError": 2, "planning: KeyError": 1}
