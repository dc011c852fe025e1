"""``piano docs``'s ``village-runs ... table=per-agent``: what an agent of a village bench cost,
every process of the run counted, and its split by kind of process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_runtime.app.village_table import render_village_runs


def _run(agents: int, kinds: dict[str, float], workers: int = 1) -> dict[str, object]:
    total = sum(kinds.values())
    return {
        "bench": "village", "agents": agents, "shards": 1, "workers": workers, "kicks": 1,
        "measured_seconds": 90.0, "decisions": agents * 15, "machine_cpu_percent": 150.0,
        "sched_lag_ms": {"p50": 1.0, "p90": 2.0, "p99": 30.5},
        "all_processes": {"cpu_percent": total, "rss_mb": 1.0, "processes": len(kinds),
                          "by_kind": {k: {"cpu_percent": v, "rss_mb": 1.0, "processes": 1}
                                      for k, v in kinds.items()}},
        "provenance": {"date": "2026-12-02T03:04:05Z", "commit": "abc1234"},
    }  # fmt: skip


def test_a_row_per_file_with_the_cost_per_agent_and_its_split(tmp_path: Path) -> None:
    kinds = {"body host": 60.0, "minecraft server": 20.0, "redis": 1.0, "other": 19.0}
    (tmp_path / "a.json").write_text(json.dumps(_run(50, kinds)))
    (tmp_path / "b.json").write_text(json.dumps(_run(25, {"body host": 25.0}, workers=2)))
    rows = render_village_runs(
        tmp_path / "a.json", {"table": "per-agent", "with": "b.json"}
    ).splitlines()
    assert len(rows) == 4 and rows[0].startswith("| result | run (UTC) | commit |")
    # 100% of a core over 50 agents: 2% each, of it bodies 1.2, server 0.4, no workers, 0.4 rest
    assert rows[2] == (
        "| a | 2026-12-02 03:04 | abc1234 | 50 / 1 / 1 | 100 | **2.00** "
        "| 1.20 / 0.40 / 0.00 / 0.40 | 150.0 | 1 | 30.5 | 10.00 | 0.120 |"
    )  # one core for 90 s over 750 decisions
    assert rows[3].startswith("| b | 2026-12-02 03:04 | abc1234 | 25 / 2 / 1 | 25 | **1.00** ")


def test_a_result_without_processes_by_kind_is_refused(tmp_path: Path) -> None:
    run = _run(10, {"body host": 5.0})
    del run["all_processes"]["by_kind"]  # type: ignore[attr-defined]
    (tmp_path / "a.json").write_text(json.dumps(run))
    with pytest.raises(ValueError, match="by_kind"):
        render_village_runs(tmp_path / "a.json", {"table": "per-agent"})
