"""The runtime bench's figures over workers: each worker's deltas over its own clock,
cadence per module as in the one-process bench (agent_runtime/app/cli/bench_*.py)."""

from __future__ import annotations

from typing import Any

from agent_runtime.app.cli.bench_counts import cadence_errors
from agent_runtime.app.cli.bench_workers import _cadence, _delta, _rates


def _record(elapsed: float, timed: dict[str, int], **counters: float) -> dict[str, Any]:
    return {
        "elapsed_s": elapsed,
        "module_timed": timed,
        "module_agents": {"perception": 500, "memory": 500},
        "module_interval": {"perception": 1.0, "memory": 3.0},
        **counters,
    }


def test_cadence_errors_signed_per_module_absolute_overall() -> None:
    per_module, overall = cadence_errors({"a": 90.0, "b": 110.0}, {"a": 100.0, "b": 100.0})
    assert per_module == {"a": -10.0, "b": 10.0}
    assert overall == 0.0


def test_workers_figures_use_each_workers_own_window() -> None:
    # worker 0 reported 20 s apart, worker 1 25 s apart (progress records every 5 s)
    first = {
        "0": _record(10.0, {"perception": 0, "memory": 0}, decisions=0, bus_published=0),
        "1": _record(12.0, {"perception": 0, "memory": 0}, decisions=0, bus_published=0),
    }
    last = {
        "0": _record(
            30.0, {"perception": 10_000, "memory": 3_000}, decisions=200, bus_published=400
        ),
        "1": _record(
            37.0, {"perception": 12_500, "memory": 4_000}, decisions=250, bus_published=500
        ),
    }
    decisions, published = _rates(first, last, "decisions", "bus_published")
    assert decisions == 10 + 10 and published == 20 + 20
    per_module, overall = _cadence(first, last)
    # perception: 22,500 steps of 500*20/1 + 500*25/1 = 22,500 expected
    assert per_module["perception"] == 0.0
    # memory: 7,000 of 500*20/3 + 500*25/3 = 7,500 expected: 6.67% short
    assert per_module["memory"] == -6.67
    assert overall > 0
    # a worker without a first record (it came up late) is left out, not divided by zero
    del first["1"]
    assert _rates(first, last, "decisions") == [10.0]


def test_workers_auto_is_one_per_core_with_at_least_100_agents_each() -> None:
    from agent_runtime.app.workers import worker_count

    assert worker_count("auto", 1000, cores=2) == 2  # the 1000-agent bench on 2 cores
    assert worker_count("auto", 1000, cores=8) == 8
    assert worker_count("auto", 250, cores=8) == 2
    assert worker_count("auto", 5, cores=2) == 1  # a small village stays in one process
    assert worker_count("3", 5, cores=2) == 3
    for bad in ("0", "-1", "many"):
        try:
            worker_count(bad, 100, cores=2)
        except ValueError:
            continue
        raise AssertionError(f"--workers {bad} accepted")


def test_workers_errors_are_the_windows_not_the_runs() -> None:
    first = {"0": {"errors": 7}, "1": {"errors": 0}}
    last = {"0": {"errors": 9}, "1": {"errors": 4}, "2": {"errors": 1}}
    assert _delta(first, last, "errors") == 2 + 4 + 1
