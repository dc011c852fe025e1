"""``piano plan``: sizes from the committed measurements, each figure naming its source."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from agent_runtime.app.cli.main import main
from agent_runtime.app.plan import (
    COST,
    RUNTIME,
    VILLAGE,
    VILLAGE_SMALL,
    PlanError,
    load_costs,
    plan,
)


def _results(root: Path, over: Mapping[str, Mapping[str, object]] | None = None) -> None:
    over = over or {}
    files: dict[str, dict[str, object]] = {
        RUNTIME: {"agents": 1000, "cpu_us_per_agent_s": 700.0, "services_cpu_pct": 3.0,
                  "rss_mb_per_agent": 0.7},
        VILLAGE_SMALL: {"agents": 20, "shards": 1, "kicks": 0,
                        "all_processes": {"cpu_percent": 60.0, "rss_mb": 900.0}},
        VILLAGE: {"agents": 40, "shards": 1, "kicks": 0,
                  "all_processes": {"cpu_percent": 100.0, "rss_mb": 1300.0}},
        COST: {"modules": {"all": {"calls_per_agent_hour": 1200.0,
                                   "tokens_per_agent_hour": 700_000.0}}},
    }  # fmt: skip
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**data, **over.get(rel, {})}))


def test_a_plan_from_measured_costs(tmp_path: Path) -> None:
    _results(tmp_path)
    costs = load_costs(tmp_path)
    # the line through the two village runs: 0.02 cores and 20 MB an agent, 0.2 cores and
    # 500 MB for the rest (once); shards of 40 agents
    assert round(costs.embodied_cores_per_agent.value, 6) == 0.02
    assert costs.embodied_fixed_mb.value == 500.0 and costs.agents_per_shard.value == 40
    p = plan(500, costs, embodied=True, cores_per_node=2, memory_gb_per_node=24, llm_latency_s=2)
    assert p.world_shards == 13 and p.agent_workers == 5
    assert p.cpus == round(500 * 0.02 + 0.2, 2)
    assert p.memory_gb == round((500 * 20 + 500) / 1024, 2)
    assert p.nodes == 8  # ceil(10.2 / (2 x 0.7)); memory needs 1
    assert p.llm_calls_per_s == round(500 * 1200 / 3600, 2) and p.llm_requests_in_flight == 333.3
    assert p.llm_tokens_per_minute == round(500 * 700_000 / 60)
    assert p.sources["cpus"].startswith(f"{VILLAGE_SMALL} and {VILLAGE}")
    assert p.sources["world_shards"].startswith(VILLAGE)
    q = plan(1000, costs, embodied=False, cores_per_node=2, memory_gb_per_node=24, llm=False)
    assert q.cpus == round(1000 * (700e-6 + 0.03 / 1000), 2) and q.world_shards == 0
    assert q.nodes == 1 and q.llm_calls_per_s == 0 and "llm_calls_per_s" not in q.sources
    # a new measurement changes the plan: twice the CPU in the larger run
    _results(tmp_path, {VILLAGE: {"all_processes": {"cpu_percent": 140.0, "rss_mb": 1300.0}}})
    more = plan(500, load_costs(tmp_path), embodied=True, cores_per_node=2, memory_gb_per_node=24)
    assert more.cpus > p.cpus
    # a run whose bodies were kicked cannot set the density
    _results(tmp_path, {VILLAGE: {"kicks": 3}})
    with pytest.raises(PlanError, match="kicked"):
        load_costs(tmp_path)


def test_a_missing_file_or_field_is_named(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no such result file"):
        load_costs(tmp_path)
    _results(tmp_path)
    (tmp_path / RUNTIME).write_text(json.dumps({"agents": 1000}))
    with pytest.raises(PlanError, match=f"{RUNTIME}: no field cpu_us_per_agent_s"):
        load_costs(tmp_path)


def test_the_cli_plans_from_the_committed_results(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--agents", "100", "--embodied", "--json", "--cores-per-node", "2",
                 "--memory-per-node", "24"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["agents"] == 100 and out["world_shards"] >= 1 and out["cpus"] > 0
    assert set(out["sources"]) == {"cpus", "memory_gb", "world_shards", "llm_calls_per_s",
                                   "llm_tokens_per_minute"}  # fmt: skip
    assert main(["plan", "--agents", "0"]) == 2
